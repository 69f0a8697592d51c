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
 */
public record Policy(
    ModeTable modes,
    PriorityPolicy priority,
    Map<String, GroupPolicy> groups,
    Map<String, Map<String, Long>> budgets,
    Duration nodeHeartbeatTimeout) {

  public Policy {
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
