package io.octomy.batch.admission;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Per-job entries of a {@link Forecast} (expected starts, expected ends) in the order they were
 * found, filled by {@link FuturePasses} and read-only for everyone else: the forecast takes it as
 * it is instead of copying ten thousand entries into a map of its own, since nothing outside this
 * package can add to it.
 */
final class ForecastEntries<V> extends AbstractMap<JobKey, V> {

  private final Map<JobKey, V> entries;
  private final Map<JobKey, V> view;

  ForecastEntries(int expected) {
    entries = new LinkedHashMap<>(expected * 4 / 3 + 1);
    view = Collections.unmodifiableMap(entries);
  }

  /** Sets the job's entry, replacing an earlier one. */
  void set(JobKey job, V value) {
    entries.put(job, value);
  }

  @Override
  public Set<Entry<JobKey, V>> entrySet() {
    return view.entrySet();
  }

  @Override
  public Set<JobKey> keySet() {
    return view.keySet();
  }

  @Override
  public V get(Object key) {
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
