package io.octomy.batch.evidence;

import java.util.Arrays;

/** Nearest-rank percentiles of durations in milliseconds. */
final class Percentiles {
  private final double[] sorted;

  Percentiles(double[] values) {
    sorted = values.clone();
    Arrays.sort(sorted);
  }

  double p(double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(q / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  String summary() {
    return String.format(
        "p50 %.0f ms, p99 %.0f ms, max %.0f ms (n=%d)", p(50), p(99), p(100), sorted.length);
  }
}
