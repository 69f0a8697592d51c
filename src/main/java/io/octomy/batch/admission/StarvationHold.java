package io.octomy.batch.admission;

import java.util.List;
import java.util.Objects;

/**
 * The starving job a pass protects (see {@link StarvationGuard}): lower-priority jobs of its
 * namespace do not take its locks, the last slot of its group or budget it needs, and when it waits
 * for capacity, lower-priority jobs that request any of {@code resources} are not admitted to
 * {@code node}.
 *
 * @param starvingJob the protected job
 * @param node the node kept for it, or null when it waits for something other than capacity
 * @param resources what it requests, when a node is kept (empty otherwise)
 * @param waitingFor what it waits for in this pass
 * @param nodes every node kept for it, {@code node} first: more than one for a gang whose replicas
 *     need several (empty when no node is kept)
 */
public record StarvationHold(
    JobKey starvingJob,
    String node,
    List<String> resources,
    Reason waitingFor,
    List<String> nodes) {
  public StarvationHold {
    Objects.requireNonNull(starvingJob, "starvingJob");
    resources = List.copyOf(resources);
    nodes =
        nodes == null || nodes.isEmpty()
            ? (node == null ? List.of() : List.of(node))
            : List.copyOf(nodes);
    Objects.requireNonNull(waitingFor, "waitingFor");
    if ((node == null) == (waitingFor == Reason.WaitingForCapacity)) {
      throw new IllegalArgumentException("a node is kept exactly when it waits for capacity");
    }
  }

  /** A hold that keeps one node, or none. */
  public StarvationHold(
      JobKey starvingJob, String node, List<String> resources, Reason waitingFor) {
    this(starvingJob, node, resources, waitingFor, List.of());
  }
}
