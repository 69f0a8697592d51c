package io.octomy.batch.agent;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reading of the machine, before any cgroup bound or override is applied.
 *
 * @param logicalProcessors logical processors the operating system reports
 * @param memoryBytes physical memory in bytes
 * @param gpus graphics cards found (0 when none)
 * @param cpuMilliInUse host-wide processor use, in thousandths of a logical processor
 * @param memoryBytesInUse host-wide memory in use (total minus available), in bytes
 */
public record HostReadings(
    int logicalProcessors, long memoryBytes, int gpus, long cpuMilliInUse, long memoryBytesInUse) {

  public HostReadings {
    if (logicalProcessors < 0
        || memoryBytes < 0
        || gpus < 0
        || cpuMilliInUse < 0
        || memoryBytesInUse < 0) {
      throw new IllegalArgumentException(
          "host readings are never negative: "
              + logicalProcessors
              + ", "
              + memoryBytes
              + ", "
              + gpus
              + ", "
              + cpuMilliInUse
              + ", "
              + memoryBytesInUse);
    }
  }

  /** Host usage as a resource map, for {@code BatchNode.status.usage}. */
  public Map<String, Long> usage() {
    Map<String, Long> usage = new LinkedHashMap<>();
    usage.put(MeasuredResources.CPU_MILLI, cpuMilliInUse);
    usage.put(MeasuredResources.MEMORY_BYTES, memoryBytesInUse);
    return usage;
  }
}
