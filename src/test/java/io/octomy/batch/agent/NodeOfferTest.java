package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeOfferTest {

  private static final long GIB = 1L << 30;
  private final ModeTable table = ModeTable.defaults();
  private final Map<String, Long> capacity =
      new LinkedHashMap<>(
          Map.of(
              "octomy.io/cpu-milli", 16_000L,
              "octomy.io/memory-bytes", 64 * GIB,
              "octomy.io/gpu", 2L,
              "example.com/su2-processes", 16L));

  @Test
  void interactiveGivesHalfTheCoresAQuarterOfTheMemoryAndNoGpu() {
    NodeOffer o = NodeOffer.of(table, capacity, NodeMode.Interactive, null);
    assertThat(o.others())
        .containsEntry("octomy.io/cpu-milli", 8000L)
        .containsEntry("octomy.io/memory-bytes", 16 * GIB)
        .containsEntry("octomy.io/gpu", 0L)
        .containsEntry("example.com/su2-processes", 8L); // via "*"
    assertThat(o.own()).isEqualTo(o.others()); // ownMode defaults to mode
  }

  @Test
  void backgroundDroneAndOff() {
    assertThat(NodeOffer.of(table, capacity, NodeMode.Background, null).others())
        .containsEntry("octomy.io/cpu-milli", 12_000L)
        .containsEntry("octomy.io/memory-bytes", 32 * GIB)
        .containsEntry("octomy.io/gpu", 2L)
        .containsEntry("example.com/su2-processes", 12L);
    assertThat(NodeOffer.of(table, capacity, NodeMode.Drone, null).others()).isEqualTo(capacity);
    assertThat(NodeOffer.of(table, capacity, NodeMode.Off, null).others().values())
        .containsOnly(0L);
  }

  @Test
  void ownWorkAndOthersWorkAreScaledSeparately() {
    // A workstation runs its own studies flat out while lending nothing to anybody.
    NodeOffer o = NodeOffer.of(table, capacity, NodeMode.Off, NodeMode.Drone);
    assertThat(o.own()).isEqualTo(capacity);
    assertThat(o.others().values()).containsOnly(0L);
  }

  @Test
  void customNamesFollowTheStarRowOfACustomTable() {
    ModeTable custom =
        table.with(Map.of(NodeMode.Background, Map.of("example.com/su2-processes", 25, "*", 60)));
    NodeOffer o = NodeOffer.of(custom, capacity, NodeMode.Background, NodeMode.Drone);
    assertThat(o.others())
        .containsEntry("example.com/su2-processes", 4L)
        .containsEntry("octomy.io/cpu-milli", 9600L)
        .containsEntry("octomy.io/gpu", 1L); // 60% of 2, rounded down
    assertThat(o.own()).containsEntry("example.com/su2-processes", 16L);
  }

  @Test
  void changingTheModeChangesOnlyTheOffer() {
    NodeOffer before = NodeOffer.of(table, capacity, NodeMode.Drone, null);
    NodeOffer after = NodeOffer.of(table, capacity, NodeMode.Interactive, null);
    assertThat(before.others()).containsEntry("octomy.io/cpu-milli", 16_000L);
    assertThat(after.others()).containsEntry("octomy.io/cpu-milli", 8000L);
    assertThat(capacity).containsEntry("octomy.io/cpu-milli", 16_000L);
  }

  @Test
  void offersNeverExceedCapacity() {
    for (NodeMode mode : NodeMode.values()) {
      NodeOffer o = NodeOffer.of(table, capacity, mode, mode);
      capacity.forEach((name, qty) -> assertThat(o.others().get(name)).isBetween(0L, qty));
    }
  }

  @Test
  void offerKeepsCapacityOrder() {
    assertThat(NodeOffer.of(table, capacity, NodeMode.Drone, null).own().keySet())
        .containsExactlyElementsOf(capacity.keySet());
  }
}
