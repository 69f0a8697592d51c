package io.octomy.batch.controller.drift;

import java.util.List;
import java.util.Map;

/**
 * Which declared limits a job's measured peaks went above. Limits are never enforced; this only
 * feeds {@code status.overLimit}, the OverLimit condition, its Event and the drift record.
 */
public final class OverLimit {

  private OverLimit() {}

  /**
   * The resource names whose measured peak is strictly above the declared limit, sorted. A resource
   * with a limit but no measurement is not listed (nothing says it went over); a measured resource
   * without a limit has no ceiling to go over.
   *
   * @param limits {@code spec.resources.limits}, may be null
   * @param peaks measured peak usage, may be null
   */
  public static List<String> exceeded(Map<String, Long> limits, Map<String, Long> peaks) {
    if (limits == null || peaks == null) {
      return List.of();
    }
    return limits.entrySet().stream()
        .filter(e -> e.getValue() != null)
        .filter(
            e -> {
              Long peak = peaks.get(e.getKey());
              return peak != null && peak > e.getValue();
            })
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }
}
