package io.octomy.batch.agent;

/**
 * Measures one job's processor and memory use by repeated sampling. The reporter calls {@link
 * #sample()} at its steady interval and publishes {@link #summary()}.
 */
public interface UsageMeter {

  /**
   * Takes a reading now.
   *
   * @return false when the job's process or cgroup is gone (the summary keeps what was seen)
   */
  boolean sample();

  /** Peak and mean so far. */
  UsageSummary summary();
}
