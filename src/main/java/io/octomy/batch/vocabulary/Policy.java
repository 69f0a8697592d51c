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
 */
public record Policy(
    ModeTable modes,
    PriorityPolicy priority,
    Map<String, GroupPolicy> groups,
    Map<String, Map<String, Long>> budgets,
    Duration nodeHeartbeatTimeout,
    Duration usageHalfLife,
    Duration finishedJobTTL) {

  /** The default half-life of a queue's past usage. */
  public static final Duration DEFAULT_USAGE_HALF_LIFE = Duration.ofHours(1);

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

  /** A policy with the default usage half-life that keeps finished jobs. */
  public Policy(
      ModeTable modes,
      PriorityPolicy priority,
      Map<String, GroupPolicy> groups,
      Map<String, Map<String, Long>> budgets,
      Duration nodeHeartbeatTimeout) {
    this(modes, priority, groups, budgets, nodeHeartbeatTimeout, DEFAULT_USAGE_HALF_LIFE, null);
  }

  /** This policy with another half-life of a queue's past usage. */
  public Policy withUsageHalfLife(Duration halfLife) {
    return new Policy(
        modes, priority, groups, budgets, nodeHeartbeatTimeout, halfLife, finishedJobTTL);
  }

  /** This policy with another default time-to-live of finished jobs (null keeps them). */
  public Policy withFinishedJobTTL(Duration ttl) {
    return new Policy(modes, priority, groups, budgets, nodeHeartbeatTimeout, usageHalfLife, ttl);
  }

  public static Policy defaults() {
    return new Policy(
        ModeTable.defaults(),
        PriorityPolicy.defaults(),
        Map.of(),
        Map.of(),
        Duration.ofSeconds(60));
  }

  /** The cap of a group; a group not listed has maxRunning 1. */
  public int maxRunning(String group) {
    return groups.getOrDefault(group, GroupPolicy.DEFAULT).maxRunning();
  }
}
