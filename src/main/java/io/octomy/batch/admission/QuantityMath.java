package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Quantities;

/**
 * Whole-number arithmetic for quantities. Sums saturate at {@link Long#MAX_VALUE} instead of
 * wrapping: a saturated allocation or budget use can only make a job not fit, never overcommit.
 */
final class QuantityMath {

  private QuantityMath() {}

  /** {@code a + b} for non-negative quantities, saturating at {@link Long#MAX_VALUE}. */
  static long add(long a, long b) {
    return Quantities.add(a, b);
  }

  /**
   * Compares the fractions {@code n1/d1} and {@code n2/d2} exactly, for non-negative numerators and
   * positive denominators, by comparing the 128-bit products {@code n1*d2} and {@code n2*d1}.
   */
  static int compareFractions(long n1, long d1, long n2, long d2) {
    return compareProducts(n1, d2, n2, d1);
  }

  /** Compares {@code a*b} with {@code c*d} exactly for non-negative operands. */
  static int compareProducts(long a, long b, long c, long d) {
    long high1 = Math.multiplyHigh(a, b);
    long high2 = Math.multiplyHigh(c, d);
    if (high1 != high2) {
      return Long.compare(high1, high2);
    }
    return Long.compareUnsigned(a * b, c * d);
  }
}
