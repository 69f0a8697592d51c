package io.octomy.batch.controller.drift;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/** The arithmetic of a drift record: percentiles, waste and the suggested request. */
public final class DriftMath {

  private static final BigDecimal HEADROOM = new BigDecimal("1.10");
  private static final MathContext TWO_FIGURES = new MathContext(2, RoundingMode.HALF_UP);

  private DriftMath() {}

  /**
   * Nearest-rank percentile: the smallest sample with at least {@code p}% of the samples at or
   * below it. Always an observed value, exact over the window, no interpolation.
   *
   * @param sorted samples in ascending order, not empty
   * @param p 1..100
   */
  public static long percentile(List<Long> sorted, int p) {
    if (sorted.isEmpty() || p < 1 || p > 100) {
      throw new IllegalArgumentException("percentile " + p + " of " + sorted.size() + " samples");
    }
    int rank = (int) ((p * (long) sorted.size() + 99) / 100); // ceil(p/100 * n), 1-based
    return sorted.get(rank - 1);
  }

  /**
   * Share of the reservation not used at p95: {@code 1 - p95/requested}, clamped to [0, 1] and
   * rounded half-up to two decimals. Null when nothing (or zero) was requested, since there is no
   * reservation to waste.
   */
  public static Double waste(Long requested, long p95) {
    if (requested == null || requested <= 0) {
      return null;
    }
    double w = 1.0 - (double) p95 / requested;
    w = Math.max(0.0, Math.min(1.0, w));
    return BigDecimal.valueOf(w).setScale(2, RoundingMode.HALF_UP).doubleValue();
  }

  /**
   * Share of the reservation not used at p95 over runs that asked different amounts: each run's
   * peak is taken as a share of what that run requested, and the waste is {@code 1 -} the p95
   * (nearest rank) of those shares, clamped and rounded as {@link #waste(Long, long)}. Runs that
   * requested nothing are left out; null when none is left. With one request for every run this is
   * {@code waste(request, p95)}.
   *
   * @param peaks measured peaks, one per run
   * @param requests what each of those runs requested, in the same order
   */
  public static Double waste(List<Long> peaks, List<Long> requests) {
    if (peaks.size() != requests.size()) {
      throw new IllegalArgumentException(peaks.size() + " peaks, " + requests.size() + " requests");
    }
    List<BigDecimal> shares = new ArrayList<>();
    for (int i = 0; i < peaks.size(); i++) {
      Long asked = requests.get(i);
      if (asked != null && asked > 0) {
        shares.add(BigDecimal.valueOf(peaks.get(i)).divide(BigDecimal.valueOf(asked), SHARE));
      }
    }
    if (shares.isEmpty()) {
      return null;
    }
    shares.sort(null);
    int rank = (int) ((95L * shares.size() + 99) / 100);
    double w = 1.0 - shares.get(rank - 1).doubleValue();
    w = Math.max(0.0, Math.min(1.0, w));
    return BigDecimal.valueOf(w).setScale(2, RoundingMode.HALF_UP).doubleValue();
  }

  /** Precision of a run's used share: far finer than the two decimals waste is shown with. */
  private static final MathContext SHARE = new MathContext(12, RoundingMode.HALF_EVEN);

  /**
   * What a person would write as the request: p95 plus 10% headroom, rounded half-up to two
   * significant figures (1100 -> 1210 -> 1200; 3_400_000_000 -> 3_740_000_000 -> 3_700_000_000), so
   * the number reads like one a person chose. Rounding can eat at most about half the headroom, and
   * the result is never below p95 (small counts such as 4 processes stay 4).
   */
  public static long suggestedRequest(long p95) {
    if (p95 <= 0) {
      return 0;
    }
    long rounded =
        BigDecimal.valueOf(p95)
            .multiply(HEADROOM)
            .round(TWO_FIGURES)
            .setScale(0, RoundingMode.HALF_UP)
            .longValueExact();
    return Math.max(rounded, p95);
  }
}
