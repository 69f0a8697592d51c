package io.octomy.batch.agent;

import io.octomy.batch.vocabulary.Quantities;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Computes a node's capacity for {@code BatchNode.status.capacity}.
 *
 * <p>Layers, later ones winning per name: measured ({@code octomy.io/cpu-milli} = logical
 * processors x 1000, {@code octomy.io/memory-bytes}, {@code octomy.io/gpu}), each bounded by the
 * cgroup; then {@code spec.resources} (capacity the agent cannot measure, but a person may also set
 * a measured name there to offer less or more than measured); then the command line's {@code
 * --capacity} overrides. The cgroup bounds only measured values: whoever writes a number in the
 * spec or on the command line means it.
 */
public final class NodeCapacity {

  private NodeCapacity() {}

  /**
   * @param readings what the probe measured
   * @param bounds the cgroup bounds of the agent ({@link CgroupBounds#NONE} outside a container)
   * @param specResources {@code BatchNode.spec.resources}, may be null
   * @param overrides {@code --capacity NAME=QTY} values, may be null
   * @return resource name to quantity, measured names first, insertion-ordered
   */
  public static Map<String, Long> of(
      HostReadings readings,
      CgroupBounds bounds,
      Map<String, Long> specResources,
      Map<String, Long> overrides) {
    Map<String, Long> capacity = new LinkedHashMap<>();
    capacity.put(
        MeasuredResources.CPU_MILLI,
        bounds.boundCpuMilli(Math.multiplyExact((long) readings.logicalProcessors(), 1000L)));
    capacity.put(MeasuredResources.MEMORY_BYTES, bounds.boundMemoryBytes(readings.memoryBytes()));
    capacity.put(MeasuredResources.GPU, (long) readings.gpus());
    putAllChecked(capacity, specResources, "spec.resources");
    putAllChecked(capacity, overrides, "--capacity");
    return capacity;
  }

  private static void putAllChecked(Map<String, Long> into, Map<String, Long> from, String where) {
    if (from == null) {
      return;
    }
    from.forEach(
        (name, qty) -> {
          if (qty == null || !Quantities.inRange(qty)) {
            throw new IllegalArgumentException(
                where
                    + " "
                    + name
                    + " must be a whole number from 0 to "
                    + Quantities.MAX
                    + ", got "
                    + qty);
          }
          into.put(name, qty);
        });
  }
}
