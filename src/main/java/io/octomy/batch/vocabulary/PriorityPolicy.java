package io.octomy.batch.vocabulary;

import java.time.Duration;

/**
 * Effective priority = class base + min(agingCeiling, agingPerMinute x whole minutes waited). A job
 * waiting longer than {@code starvationAfter} is starving.
 */
public record PriorityPolicy(
    long guaranteed,
    long burstable,
    long bestEffort,
    long agingPerMinute,
    long agingCeiling,
    Duration starvationAfter) {

  public static PriorityPolicy defaults() {
    return new PriorityPolicy(200, 100, 0, 10, 300, Duration.ofHours(1));
  }
}
