package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuantityMathTest {

  @Test
  void sumsSaturateInsteadOfWrapping() {
    assertThat(QuantityMath.add(2, 3)).isEqualTo(5);
    assertThat(QuantityMath.add(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(QuantityMath.add(Long.MAX_VALUE - 5, Long.MAX_VALUE - 5)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void fractionsCompareExactlyBeyondLongProducts() {
    long big = 3_000_000_000_000L; // 3 TB in bytes: big * big overflows a long
    assertThat(QuantityMath.compareFractions(big, big + 1, big - 1, big)).isGreaterThan(0);
    assertThat(QuantityMath.compareFractions(1, 3, 2, 6)).isZero();
    assertThat(QuantityMath.compareFractions(1, 3, 1, 2)).isLessThan(0);
    assertThat(QuantityMath.compareFractions(0, 1, 0, 7)).isZero();
  }
}
