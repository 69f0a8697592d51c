package io.octomy.batch.agent;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Peak and mean use of one job so far, for {@code BatchNode.status.jobs[].usage} and, through the
 * controller, {@code BatchJob.status.usage} (the peak).
 *
 * @param peakCpuMilli highest processor rate seen over one sampling interval, milli-cores
 * @param meanCpuMilli processor time used divided by wall time measured, milli-cores
 * @param peakMemoryBytes highest memory seen (including the kernel's own peak where it keeps one)
 * @param meanMemoryBytes time-weighted mean of the memory samples
 * @param samples readings taken (the first only sets the baseline for processor time)
 */
public record UsageSummary(
    long peakCpuMilli, long meanCpuMilli, long peakMemoryBytes, long meanMemoryBytes, int samples) {

  /** Nothing measured yet. */
  public static final UsageSummary EMPTY = new UsageSummary(0, 0, 0, 0, 0);

  /** The peaks as a resource map. */
  public Map<String, Long> peak() {
    return map(peakCpuMilli, peakMemoryBytes);
  }

  /** The means as a resource map. */
  public Map<String, Long> mean() {
    return map(meanCpuMilli, meanMemoryBytes);
  }

  private static Map<String, Long> map(long cpu, long memory) {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put(MeasuredResources.CPU_MILLI, cpu);
    m.put(MeasuredResources.MEMORY_BYTES, memory);
    return m;
  }
}
