package io.octomy.batch.vocabulary;

/**
 * Quantities are whole numbers from 0 to {@link #MAX}. The bound is written into the CRDs ({@code
 * maximum}) and checked again by the Java validator and the policy loader, so that every sum and
 * product the system forms stays far from the 64-bit limit; the sums that add up an unbounded
 * number of jobs saturate instead of wrapping, which can only make a job not fit, never overcommit.
 */
public final class Quantities {

  /**
   * 2^53 - 1: the largest whole number every JSON reader keeps exact (JavaScript and other clients
   * read numbers as doubles). A hundred times it still fits in a long, so a capacity can be scaled
   * by a percentage without overflow.
   */
  public static final long MAX = 9_007_199_254_740_991L;

  private Quantities() {}

  /** True for a whole number from 0 to {@link #MAX}. */
  public static boolean inRange(long quantity) {
    return quantity >= 0 && quantity <= MAX;
  }

  /** {@code a + b}, saturating at {@link Long#MAX_VALUE} (and at {@link Long#MIN_VALUE}). */
  public static long add(long a, long b) {
    long sum = a + b;
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }

  /** {@code a - b}, saturating like {@link #add}. */
  public static long subtract(long a, long b) {
    long diff = a - b;
    if (((a ^ b) & (a ^ diff)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return diff;
  }
}
