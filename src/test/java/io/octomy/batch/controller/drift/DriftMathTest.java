package io.octomy.batch.controller.drift;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class DriftMathTest {

  @Test
  void nearestRankPercentilesAreObservedValues() {
    List<Long> hundred = LongStream.rangeClosed(1, 100).boxed().toList();
    assertThat(DriftMath.percentile(hundred, 50)).isEqualTo(50);
    assertThat(DriftMath.percentile(hundred, 95)).isEqualTo(95);
    assertThat(DriftMath.percentile(hundred, 100)).isEqualTo(100);
    List<Long> three = List.of(10L, 20L, 30L);
    assertThat(DriftMath.percentile(three, 50)).isEqualTo(20);
    assertThat(DriftMath.percentile(three, 95)).isEqualTo(30);
    assertThat(DriftMath.percentile(List.of(7L), 95)).isEqualTo(7);
  }

  @Test
  void wasteIsTheUnusedShareClampedAndRounded() {
    assertThat(DriftMath.waste(4000L, 1000)).isEqualTo(0.75);
    assertThat(DriftMath.waste(3000L, 1000)).isEqualTo(0.67);
    assertThat(DriftMath.waste(1000L, 1500)).isEqualTo(0.0); // used more than requested
    assertThat(DriftMath.waste(1000L, 0)).isEqualTo(1.0);
    assertThat(DriftMath.waste(null, 10)).isNull();
    assertThat(DriftMath.waste(0L, 10)).isNull();
  }

  @Test
  void suggestedRequestAddsHeadroomAndReadsLikeAPersonsNumber() {
    assertThat(DriftMath.suggestedRequest(1100)).isEqualTo(1200); // 1210 -> 1200
    assertThat(DriftMath.suggestedRequest(999)).isEqualTo(1100); // 1098.9 -> 1100
    assertThat(DriftMath.suggestedRequest(1_073_741_824L)).isEqualTo(1_200_000_000L);
    assertThat(DriftMath.suggestedRequest(95)).isEqualTo(100); // 104.5 -> 100
    assertThat(DriftMath.suggestedRequest(4)).isEqualTo(4); // a count stays a count
    assertThat(DriftMath.suggestedRequest(5)).isEqualTo(6); // 5.5 -> 6
    assertThat(DriftMath.suggestedRequest(0)).isZero();
    for (long p95 = 1; p95 < 5000; p95 += 7) {
      assertThat(DriftMath.suggestedRequest(p95)).isBetween(p95, p95 * 12 / 10 + 1);
    }
  }
}
