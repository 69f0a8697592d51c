package io.octomy.batch.admission;

import java.util.List;

/**
 * One admission made by a pass, in the order the pass made it.
 *
 * @param replicaNodes a gang's node per replica in replica order ({@code node} first); empty for a
 *     job of one replica
 */
public record Admission(
    JobKey job, String node, long effectivePriority, boolean starving, List<String> replicaNodes) {

  public Admission {
    replicaNodes = List.copyOf(replicaNodes);
  }

  /** The admission of a job of one replica. */
  public Admission(JobKey job, String node, long effectivePriority, boolean starving) {
    this(job, node, effectivePriority, starving, List.of());
  }

  /** The admission a pass decided for {@code job}. */
  static Admission of(JobKey job, Decision.Admit admit) {
    return new Admission(
        job, admit.node(), admit.effectivePriority(), admit.starving(), admit.replicaNodes());
  }

  /** The node of each replica in replica order: {@link #replicaNodes}, or {@link #node} alone. */
  public List<String> nodes() {
    return replicaNodes.isEmpty() ? List.of(node) : replicaNodes;
  }
}
