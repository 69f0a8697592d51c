package io.octomy.batch.vocabulary;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one offer rule, which admission places against and agents report. */
class ModeTableTest {

  private static final String CPU = "octomy.io/cpu-milli";
  private final ModeTable defaults = ModeTable.defaults();

  @Test
  void offerIsCapacityTimesPercentRoundedDown() {
    assertThat(defaults.offer(NodeMode.Interactive, CPU, 16000)).isEqualTo(8000);
    assertThat(defaults.offer(NodeMode.Interactive, "octomy.io/memory-bytes", 1001)).isEqualTo(250);
    assertThat(defaults.offer(NodeMode.Background, CPU, 999)).isEqualTo(749);
    assertThat(defaults.offer(NodeMode.Drone, "example.com/any", 7)).isEqualTo(7);
  }

  @Test
  void offNeverOffersAnythingWhateverItsRowSays() {
    ModeTable generousOff = defaults.with(Map.of(NodeMode.Off, Map.of(ModeTable.ANY, 50)));
    assertThat(generousOff.percent(NodeMode.Off, CPU)).isEqualTo(50);
    assertThat(generousOff.offer(NodeMode.Off, CPU, 16000)).isZero();
  }

  @Test
  void aPercentOutsideZeroToHundredIsClamped() {
    ModeTable odd =
        new ModeTable(
            Map.of(
                NodeMode.Drone, Map.of(ModeTable.ANY, 150), NodeMode.Background, Map.of(CPU, -5)));
    assertThat(odd.offer(NodeMode.Drone, CPU, 1000)).isEqualTo(1000);
    assertThat(odd.offer(NodeMode.Background, CPU, 1000)).isZero();
  }

  @Test
  void theLargestCapacityDoesNotOverflow() {
    assertThat(defaults.offer(NodeMode.Drone, CPU, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(defaults.offer(NodeMode.Background, CPU, Long.MAX_VALUE))
        .isEqualTo(Long.MAX_VALUE / 100 * 75 + Long.MAX_VALUE % 100 * 75 / 100);
  }

  @Test
  void aNegativeCapacityOffersNothing() {
    assertThat(defaults.offer(NodeMode.Drone, CPU, -1)).isZero();
  }

  @Test
  void aModeMissingFromTheTableOffersNothing() {
    ModeTable onlyDrone = new ModeTable(Map.of(NodeMode.Drone, Map.of(ModeTable.ANY, 100)));
    assertThat(onlyDrone.offer(NodeMode.Interactive, CPU, 1000)).isZero();
  }
}
