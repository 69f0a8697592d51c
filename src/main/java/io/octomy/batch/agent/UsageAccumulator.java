package io.octomy.batch.agent;

/**
 * Folds interval readings into a {@link UsageSummary}. Not thread-safe; each meter owns one and
 * guards it.
 *
 * <p>The mean processor use is total processor time over total wall time rather than a mean of
 * interval rates, so irregular sampling does not skew it. Memory is weighted by the interval that
 * ends at each sample.
 */
final class UsageAccumulator {

  private long peakCpuMilli;
  private long peakMemory;
  private long cpuNanosTotal;
  private long wallNanosTotal;
  private double memoryByteNanos;
  private long lastMemory;
  private int samples;

  /** The first reading: memory only, since processor time needs a previous reading. */
  void first(long memoryBytes) {
    samples++;
    lastMemory = memoryBytes;
    peakMemory = Math.max(peakMemory, memoryBytes);
  }

  /**
   * A reading at the end of an interval.
   *
   * @param wallNanos length of the interval
   * @param cpuNanos processor time used in it (all threads, all processes)
   * @param memoryBytes memory in use now
   */
  void interval(long wallNanos, long cpuNanos, long memoryBytes) {
    samples++;
    peakMemory = Math.max(peakMemory, memoryBytes);
    lastMemory = memoryBytes;
    if (wallNanos <= 0) {
      return; // two readings at the same instant say nothing about a rate
    }
    long cpu = Math.max(0, cpuNanos); // a counter can appear to step back when a process exits
    peakCpuMilli = Math.max(peakCpuMilli, Math.round(cpu * 1000.0 / wallNanos));
    cpuNanosTotal += cpu;
    wallNanosTotal += wallNanos;
    memoryByteNanos += (double) memoryBytes * wallNanos;
  }

  /** Raises the memory peak to a value the kernel recorded between readings. */
  void observedPeakMemory(long bytes) {
    peakMemory = Math.max(peakMemory, bytes);
  }

  UsageSummary summary() {
    long meanCpu = wallNanosTotal == 0 ? 0 : Math.round(cpuNanosTotal * 1000.0 / wallNanosTotal);
    long meanMemory =
        wallNanosTotal == 0 ? lastMemory : Math.round(memoryByteNanos / wallNanosTotal);
    return new UsageSummary(peakCpuMilli, meanCpu, peakMemory, meanMemory, samples);
  }
}
