package io.octomy.batch.vocabulary;

import java.time.Duration;
import java.util.Objects;

/**
 * Effective priority = class base + min(agingCeiling, agingPerMinute x whole minutes waited). A job
 * waiting longer than {@code starvationAfter} is starving.
 *
 * <p>Every number is a whole number from 0 to {@link #MAX}, so a base plus the ceiling is far from
 * any overflow whatever the policy file says; the constructor refuses anything else.
 */
public record PriorityPolicy(
    long guaranteed,
    long burstable,
    long bestEffort,
    long agingPerMinute,
    long agingCeiling,
    Duration starvationAfter) {

  /** The largest class base, aging step or aging ceiling a policy may set. */
  public static final long MAX = 1_000_000_000L;

  public PriorityPolicy {
    inRange("guaranteed", guaranteed);
    inRange("burstable", burstable);
    inRange("bestEffort", bestEffort);
    inRange("agingPerMinute", agingPerMinute);
    inRange("agingCeiling", agingCeiling);
    Objects.requireNonNull(starvationAfter, "starvationAfter");
    if (starvationAfter.isNegative()) {
      throw new IllegalArgumentException(
          "priority.starvationAfter is " + starvationAfter + "; write a duration of 0 or more");
    }
  }

  public static PriorityPolicy defaults() {
    return new PriorityPolicy(200, 100, 0, 10, 300, Duration.ofHours(1));
  }

  private static void inRange(String field, long value) {
    if (value < 0 || value > MAX) {
      throw new IllegalArgumentException(
          "priority." + field + " is " + value + "; write a whole number from 0 to " + MAX);
    }
  }
}
