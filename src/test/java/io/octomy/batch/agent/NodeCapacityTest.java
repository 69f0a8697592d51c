package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class NodeCapacityTest {

  private static final long GIB = 1L << 30;
  private final HostReadings host = new HostReadings(16, 64 * GIB, 2, 3000, 10 * GIB);

  @Test
  void measuredNamesFromTheReadings() {
    assertThat(NodeCapacity.of(host, CgroupBounds.NONE, null, null))
        .containsExactly(
            Map.entry("octomy.io/cpu-milli", 16_000L),
            Map.entry("octomy.io/memory-bytes", 64 * GIB),
            Map.entry("octomy.io/gpu", 2L));
  }

  @Test
  void cgroupBoundsMeasuredCpuAndMemory() {
    CgroupBounds container = new CgroupBounds(OptionalLong.of(2500), OptionalLong.of(4 * GIB));
    Map<String, Long> c = NodeCapacity.of(host, container, null, null);
    assertThat(c)
        .containsEntry("octomy.io/cpu-milli", 2500L)
        .containsEntry("octomy.io/memory-bytes", 4 * GIB)
        .containsEntry("octomy.io/gpu", 2L);
  }

  @Test
  void aCgroupLargerThanTheHostDoesNotRaiseIt() {
    CgroupBounds loose = new CgroupBounds(OptionalLong.of(64_000), OptionalLong.of(128 * GIB));
    Map<String, Long> c = NodeCapacity.of(host, loose, null, null);
    assertThat(c)
        .containsEntry("octomy.io/cpu-milli", 16_000L)
        .containsEntry("octomy.io/memory-bytes", 64 * GIB);
  }

  @Test
  void specAddsUnmeasurableResourcesAndOverridesWin() {
    Map<String, Long> c =
        NodeCapacity.of(
            host,
            CgroupBounds.NONE,
            Map.of("example.com/su2-processes", 16L, "octomy.io/gpu", 1L),
            Map.of("octomy.io/cpu-milli", 4000L, "example.com/su2-processes", 8L));
    assertThat(c)
        .containsEntry("octomy.io/cpu-milli", 4000L)
        .containsEntry("octomy.io/gpu", 1L)
        .containsEntry("example.com/su2-processes", 8L)
        .containsEntry("octomy.io/memory-bytes", 64 * GIB);
  }

  @Test
  void overridesAreNotBoundedByTheCgroup() {
    CgroupBounds container = new CgroupBounds(OptionalLong.of(1000), OptionalLong.empty());
    assertThat(NodeCapacity.of(host, container, null, Map.of("octomy.io/cpu-milli", 8000L)))
        .containsEntry("octomy.io/cpu-milli", 8000L);
  }

  @Test
  void negativeQuantitiesAreRejectedWithTheirSource() {
    assertThatThrownBy(
            () -> NodeCapacity.of(host, CgroupBounds.NONE, null, Map.of("example.com/x", -1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--capacity example.com/x");
  }

  @Test
  void hostUsageIsAResourceMap() {
    assertThat(host.usage())
        .containsExactly(
            Map.entry("octomy.io/cpu-milli", 3000L), Map.entry("octomy.io/memory-bytes", 10 * GIB));
  }
}
