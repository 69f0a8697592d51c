package io.octomy.batch.vocabulary;

import java.time.Duration;
import java.util.Objects;

/**
 * Effective priority = class base + min(agingCeiling, agingPerMinute x whole minutes waited) + the
 * fair-share term of the job's queue (up to {@code fairShareWeight}; 0 while there is no
 * BatchQueue). A job waiting longer than {@code starvationAfter} is starving.
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
    Duration starvationAfter,
    long fairShareWeight) {

  /** The largest class base, aging step or aging ceiling a policy may set. */
  public static final long MAX = 1_000_000_000L;

  /**
   * The default fair-share weight. Of two equal queues, one holding the whole pool gets a quarter
   * of it and one holding nothing all of it: a gap of 750, above the 500 that class bases and aging
   * can span together by default (200 + 300), so a team with nothing running goes before a team
   * holding the pool from the next decision, whatever the classes and waits of their jobs.
   */
  public static final long DEFAULT_FAIR_SHARE_WEIGHT = 1000;

  public PriorityPolicy {
    inRange("guaranteed", guaranteed);
    inRange("burstable", burstable);
    inRange("bestEffort", bestEffort);
    inRange("agingPerMinute", agingPerMinute);
    inRange("agingCeiling", agingCeiling);
    inRange("fairShareWeight", fairShareWeight);
    Objects.requireNonNull(starvationAfter, "starvationAfter");
    if (starvationAfter.isNegative()) {
      throw new IllegalArgumentException(
          "priority.starvationAfter is " + starvationAfter + "; write a duration of 0 or more");
    }
  }

  /** A policy with the default fair-share weight. */
  public PriorityPolicy(
      long guaranteed,
      long burstable,
      long bestEffort,
      long agingPerMinute,
      long agingCeiling,
      Duration starvationAfter) {
    this(
        guaranteed,
        burstable,
        bestEffort,
        agingPerMinute,
        agingCeiling,
        starvationAfter,
        DEFAULT_FAIR_SHARE_WEIGHT);
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
