package io.octomy.batch.vocabulary;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The admission policy: mode table, priority and aging, group caps, per-namespace budgets and the
 * node heartbeat timeout. Every part falls back to the defaults of the design.
 *
 * @param budgets per namespace: resource name to the most that admitted and running jobs of the
 *     namespace may request together; a namespace or resource not listed is unbounded
 * @param usageHalfLife how fast a BatchQueue's past usage (request x run time) fades for fair share
 * @param finishedJobTTL how long after it ended a finished job is deleted when its spec does not
 *     say (ttlSecondsAfterFinished); null keeps finished jobs
 * @param retryBackoff the wait before a failed run's retry may be admitted; it doubles with each
 *     failed run, up to {@link #MAX_RETRY_BACKOFF} (or this, when longer)
 */
public record Policy(
    ModeTable modes,
    PriorityPolicy priority,
    Map<String, GroupPolicy> groups,
    Map<String, Map<String, Long>> budgets,
    Duration nodeHeartbeatTimeout,
    Duration usageHalfLife,
    Duration finishedJobTTL,
    Duration retryBackoff) {

  /** The default half-life of a queue's past usage. */
  public static final Duration DEFAULT_USAGE_HALF_LIFE = Duration.ofHours(1);

  /** The longest back-off before a retry, as a Kubernetes Job's. */
  public static final Duration MAX_RETRY_BACKOFF = Duration.ofMinutes(6);

  /** The first back-off before a retry by default, as a Kubernetes Job's. */
  public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofSeconds(10);

  public Policy {
    if (finishedJobTTL != null && finishedJobTTL.isNegative()) {
      throw new IllegalArgumentException(
          "finishedJobTTL is " + finishedJobTTL + "; write 0s or more, like 24h, or leave it out");
    }
    if (usageHalfLife == null || usageHalfLife.isNegative() || usageHalfLife.isZero()) {
      throw new IllegalArgumentException(
          "fairShare.usageHalfLife is "
              + usageHalfLife
              + "; write a positive duration like 1h (past usage would never fade)");
    }
    Objects.requireNonNull(modes, "modes");
    Objects.requireNonNull(priority, "priority");
    if (nodeHeartbeatTimeout == null
        || nodeHeartbeatTimeout.isNegative()
        || nodeHeartbeatTimeout.isZero()) {
      throw new IllegalArgumentException(
          "nodeHeartbeatTimeout is "
              + nodeHeartbeatTimeout
              + "; write a positive duration like 60s (no node would ever count as ready)");
    }
    if (retryBackoff == null || retryBackoff.isNegative() || retryBackoff.isZero()) {
      throw new IllegalArgumentException(
          "retryBackoff is "
              + retryBackoff
              + "; write a positive duration like 10s (the wait before a failed run is retried)");
    }
    groups = Map.copyOf(groups);
    budgets =
        budgets.entrySet().stream()
            .collect(
                Collectors.toUnmodifiableMap(Map.Entry::getKey, e -> Map.copyOf(e.getValue())));
    budgets.forEach(
        (namespace, budget) ->
            budget.forEach(
                (resource, limit) -> {
                  if (!Quantities.inRange(limit)) {
                    throw new IllegalArgumentException(
                        "budgets."
                            + namespace
                            + "."
                            + resource
                            + " is "
                            + limit
                            + "; write a whole number from 0 to "
                            + Quantities.MAX);
                  }
                }));
  }

  /** A policy with the default usage half-life and retry back-off, which keeps finished jobs. */
  public Policy(
      ModeTable modes,
      PriorityPolicy priority,
      Map<String, GroupPolicy> groups,
      Map<String, Map<String, Long>> budgets,
      Duration nodeHeartbeatTimeout) {
    this(
        modes,
        priority,
        groups,
        budgets,
        nodeHeartbeatTimeout,
        DEFAULT_USAGE_HALF_LIFE,
        null,
        DEFAULT_RETRY_BACKOFF);
  }

  /** This policy with another half-life of a queue's past usage. */
  public Policy withUsageHalfLife(Duration halfLife) {
    return new Policy(
        modes,
        priority,
        groups,
        budgets,
        nodeHeartbeatTimeout,
        halfLife,
        finishedJobTTL,
        retryBackoff);
  }

  /** This policy with another default time-to-live of finished jobs (null keeps them). */
  public Policy withFinishedJobTTL(Duration ttl) {
    return new Policy(
        modes, priority, groups, budgets, nodeHeartbeatTimeout, usageHalfLife, ttl, retryBackoff);
  }

  /** This policy with another first back-off before a retry. */
  public Policy withRetryBackoff(Duration backoff) {
    return new Policy(
        modes,
        priority,
        groups,
        budgets,
        nodeHeartbeatTimeout,
        usageHalfLife,
        finishedJobTTL,
        backoff);
  }

  public static Policy defaults() {
    return new Policy(
        ModeTable.defaults(),
        PriorityPolicy.defaults(),
        Map.of(),
        Map.of(),
        Duration.ofSeconds(60));
  }

  /**
   * How long a job waits before its next run after {@code failedRuns} failed ones: the back-off
   * doubled per failed run after the first, capped at {@link #MAX_RETRY_BACKOFF}.
   */
  public Duration retryDelay(int failedRuns) {
    Duration cap = retryBackoff.compareTo(MAX_RETRY_BACKOFF) > 0 ? retryBackoff : MAX_RETRY_BACKOFF;
    Duration d = retryBackoff;
    for (int i = 1; i < failedRuns && d.compareTo(cap) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(cap) > 0 ? cap : d;
  }

  /** The cap of a group; a group not listed has maxRunning 1. */
  public int maxRunning(String group) {
    return groups.getOrDefault(group, GroupPolicy.DEFAULT).maxRunning();
  }
}
