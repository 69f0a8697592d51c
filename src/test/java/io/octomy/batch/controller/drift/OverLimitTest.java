package io.octomy.batch.controller.drift;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OverLimitTest {

  @Test
  void listsOnlyPeaksStrictlyAboveTheirLimitSorted() {
    Map<String, Long> limits =
        Map.of(
            "octomy.io/memory-bytes", 1000L,
            "octomy.io/cpu-milli", 2000L,
            "example.com/licences", 2L,
            "example.com/unmeasured", 1L);
    Map<String, Long> peaks =
        Map.of(
            "octomy.io/memory-bytes", 1001L,
            "octomy.io/cpu-milli", 2500L,
            "example.com/licences", 2L, // at the limit is not over it
            "example.com/no-limit", 99L);
    assertThat(OverLimit.exceeded(limits, peaks))
        .containsExactly("octomy.io/cpu-milli", "octomy.io/memory-bytes");
  }

  @Test
  void nothingDeclaredOrNothingMeasuredIsNeverOver() {
    assertThat(OverLimit.exceeded(null, Map.of("a.io/x", 5L))).isEmpty();
    assertThat(OverLimit.exceeded(Map.of("a.io/x", 1L), null)).isEmpty();
    assertThat(OverLimit.exceeded(Map.of(), Map.of("a.io/x", 5L))).isEmpty();
  }
}
