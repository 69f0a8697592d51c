package io.octomy.batch.admission;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Per-job entries of a {@link Forecast} (expected starts, expected ends) in the order they were
 * first set, filled by {@link FuturePasses} and read-only for everyone else: the forecast takes it
 * as it is instead of copying ten thousand entries into a map of its own, since nothing outside
 * this package can add to it.
 *
 * <p>The values are kept by job index, not hashed by key: a forecast sets an entry at every
 * simulated admission and end, tens of thousands of times, and a hash map's puts were a twentieth
 * of its time. A key is looked up through the pass's own index of its jobs.
 */
final class ForecastEntries<V> extends EntriesInOrder<V> {

  private final List<PreparedJob> jobs;
  private final Function<JobKey, PreparedJob> byKey;
  private final Object[] values;
  private final int[] order;
  private int size;

  /**
   * @param jobs every job of the pass, by index
   * @param byKey the pass's job of a key, null for none
   */
  ForecastEntries(List<PreparedJob> jobs, Function<JobKey, PreparedJob> byKey) {
    this.jobs = jobs;
    this.byKey = byKey;
    this.values = new Object[jobs.size()];
    this.order = new int[jobs.size()];
  }

  /** Sets the job's entry, replacing an earlier one (which keeps its place in the order). */
  void set(PreparedJob job, V value) {
    Objects.requireNonNull(value, "value");
    if (values[job.index] == null) {
      order[size++] = job.index;
    }
    values[job.index] = value;
  }

  @Override
  public V get(Object key) {
    if (!(key instanceof JobKey job)) {
      return null;
    }
    PreparedJob found = byKey.apply(job);
    return found == null ? null : valueOf(found.index);
  }

  @Override
  public boolean containsKey(Object key) {
    return get(key) != null;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  JobKey keyAt(int place) {
    return jobs.get(order[place]).key;
  }

  @Override
  V valueAt(int place) {
    return valueOf(order[place]);
  }

  @SuppressWarnings("unchecked") // only set() writes values, each a V
  private V valueOf(int index) {
    return (V) values[index];
  }
}
