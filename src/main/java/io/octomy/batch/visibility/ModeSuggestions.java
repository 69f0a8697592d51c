package io.octomy.batch.visibility;

import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What a node would offer a job in another mode, for the "or change its mode" remedy. */
final class ModeSuggestions {

  /** From the least to the most a node gives away. */
  private static final List<NodeMode> MODES =
      List.of(NodeMode.Interactive, NodeMode.Background, NodeMode.Drone);

  private final Map<String, NodeView> nodes = new HashMap<>();
  private final ModeTable table;

  ModeSuggestions(Snapshot snapshot) {
    snapshot.nodes().forEach(n -> nodes.put(n.name(), n));
    table = snapshot.policy().modes();
  }

  /**
   * The first mode, from Interactive to Drone, other than the one the node has for this job, in
   * which the node's offer holds every request; empty when none does (its capacity is too small).
   */
  Optional<NodeMode> modeThatHolds(String node, JobView job, boolean origin) {
    NodeView n = nodes.get(node);
    if (n == null) {
      return Optional.empty();
    }
    NodeMode current = origin ? n.ownMode() : n.mode();
    for (NodeMode mode : MODES) {
      if (mode != current && holds(n, mode, job)) {
        return Optional.of(mode);
      }
    }
    return Optional.empty();
  }

  /** Whether the node has any of {@code resource} at all, in whatever mode. */
  boolean hasCapacity(String node, String resource) {
    NodeView n = nodes.get(node);
    return n != null && n.capacity().getOrDefault(resource, 0L) > 0;
  }

  private boolean holds(NodeView node, NodeMode mode, JobView job) {
    for (Map.Entry<String, Long> r : job.requests().entrySet()) {
      if (r.getValue() > 0 && r.getValue() > offer(node, mode, r.getKey())) {
        return false;
      }
    }
    return true;
  }

  /** capacity x percent / 100, rounded down, without overflow (as the pass computes it). */
  private long offer(NodeView node, NodeMode mode, String resource) {
    long capacity = Math.max(0, node.capacity().getOrDefault(resource, 0L));
    long percent = Math.min(100, Math.max(0, table.percent(mode, resource)));
    return capacity / 100 * percent + capacity % 100 * percent / 100;
  }
}
