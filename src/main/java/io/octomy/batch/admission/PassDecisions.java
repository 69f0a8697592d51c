package io.octomy.batch.admission;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The decisions of one pass in pass order, filled by the pass and read-only for everyone else:
 * {@link AdmissionResult} takes it as it is instead of copying ten thousand entries into a map of
 * its own, since nothing outside this package can add to it.
 */
final class PassDecisions extends AbstractMap<JobKey, Decision> {

  private final Map<JobKey, Decision> entries;
  private final Map<JobKey, Decision> view;

  PassDecisions(int expected) {
    entries = new LinkedHashMap<>(expected * 4 / 3 + 1);
    view = Collections.unmodifiableMap(entries);
  }

  /** Adds the decision of the job whose turn it is; a job is decided once. */
  void add(JobKey job, Decision decision) {
    if (entries.putIfAbsent(job, decision) != null) {
      throw new IllegalStateException(job + " decided twice in one pass");
    }
  }

  @Override
  public Set<Entry<JobKey, Decision>> entrySet() {
    return view.entrySet();
  }

  @Override
  public Set<JobKey> keySet() {
    return view.keySet();
  }

  @Override
  public Decision get(Object key) {
    return entries.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return entries.containsKey(key);
  }

  @Override
  public int size() {
    return entries.size();
  }
}
