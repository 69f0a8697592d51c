package io.octomy.batch.vocabulary;

import java.time.Duration;
import java.util.Map;
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
    groups = Map.copyOf(groups);
    budgets =
        budgets.entrySet().stream()
            .collect(
                Collectors.toUnmodifiableMap(Map.Entry::getKey, e -> Map.copyOf(e.getValue())));
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
