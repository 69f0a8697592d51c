package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the admission pass decided for one Queued job. Each kind says which phase, reason and
 * message the controller writes to the job's status.
 */
public sealed interface Decision {

  /** The reason code to write. */
  Reason reason();

  /** The message to write: whole sentences with the numbers. */
  String message();

  /** The phase to write. */
  JobPhase phase();

  /** What the job waits for; empty unless it waits. */
  default List<WaitingOn> waitingOn() {
    return List.of();
  }

  /** Whether the job has waited longer than the policy's {@code starvationAfter}. */
  default boolean starving() {
    return false;
  }

  /**
   * Admit the job to {@code node}, where {@code mode} applies to it ({@code ownMode} for its own
   * work): it holds its reservation from now on.
   *
   * <p>A gang ({@code spec.replicas} above 1) is admitted whole: {@code replicaNodes} names the
   * node of each replica in replica order (several replicas may share a node), {@code node} is the
   * first, and each replica holds its requests on its node. Its {@code mode} is the most
   * conservative of the modes that apply on those nodes (Interactive before Background before
   * Drone): the one promise every replica can keep. Its service class is derived from what it
   * declared, as any job's, and is the same for every replica; no mode changes it.
   *
   * @param replicaNodes a gang's node per replica; empty for a job of one replica
   */
  record Admit(
      String node,
      NodeMode mode,
      long effectivePriority,
      boolean starving,
      List<String> replicaNodes)
      implements Decision {
    public Admit {
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(mode, "mode");
      if (mode == NodeMode.Off) {
        throw new IllegalArgumentException("no job is admitted where Off applies");
      }
      replicaNodes = List.copyOf(replicaNodes);
      if (replicaNodes.size() == 1
          || (!replicaNodes.isEmpty() && !replicaNodes.get(0).equals(node))) {
        throw new IllegalArgumentException(
            "a gang's replica nodes start with its node and name two replicas or more");
      }
    }

    /** A job of one replica. */
    public Admit(String node, NodeMode mode, long effectivePriority, boolean starving) {
      this(node, mode, effectivePriority, starving, List.of());
    }

    /** The node of each replica in replica order: {@link #replicaNodes}, or {@link #node} alone. */
    public List<String> nodes() {
      return replicaNodes.isEmpty() ? List.of(node) : replicaNodes;
    }

    @Override
    public Reason reason() {
      return Reason.Admitted;
    }

    @Override
    public String message() {
      if (replicaNodes.isEmpty()) {
        return "admitted to node " + node + ".";
      }
      return "admitted as a gang of " + replicaNodes.size() + " replicas: " + where() + ".";
    }

    /** "0 and 1 on node a, 2 on node b": each node once, in the order of its first replica. */
    private String where() {
      Map<String, List<Integer>> byNode = new LinkedHashMap<>();
      for (int i = 0; i < replicaNodes.size(); i++) {
        byNode.computeIfAbsent(replicaNodes.get(i), k -> new ArrayList<>()).add(i);
      }
      List<String> parts = new ArrayList<>();
      byNode.forEach(
          (name, replicas) -> {
            List<String> numbers = replicas.stream().map(String::valueOf).toList();
            String which =
                numbers.size() == 1
                    ? numbers.get(0)
                    : String.join(", ", numbers.subList(0, numbers.size() - 1))
                        + " and "
                        + numbers.get(numbers.size() - 1);
            parts.add(which + " on node " + name);
          });
      return String.join(", ", parts);
    }

    @Override
    public JobPhase phase() {
      return JobPhase.Admitted;
    }
  }

  /**
   * Leave the job Queued, with a waiting reason.
   *
   * @param starvation for a job that has waited longer than {@code starvationAfter}: what is held
   *     back for it, or why nothing can be (a sentence); null for a job that is not starving
   */
  record Wait(
      Reason reason,
      String message,
      List<WaitingOn> waitingOn,
      long effectivePriority,
      String starvation)
      implements Decision {
    public Wait {
      Objects.requireNonNull(reason, "reason");
      if (!reason.isWait()) {
        throw new IllegalArgumentException(reason + " is not a waiting reason");
      }
      Objects.requireNonNull(message, "message");
      waitingOn = List.copyOf(waitingOn);
    }

    @Override
    public boolean starving() {
      return starvation != null;
    }

    @Override
    public JobPhase phase() {
      return JobPhase.Queued;
    }
  }

  /**
   * Skip the job (phase Skipped, reason DependencyFailed): an ancestor failed, was skipped or was
   * rejected, so it can never run.
   *
   * @param failedAncestor the ancestor that failed (in the same namespace)
   * @param message names the ancestor, and the dependency it was reached through when transitive
   */
  record Skip(String failedAncestor, String message) implements Decision {
    public Skip {
      Objects.requireNonNull(failedAncestor, "failedAncestor");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public Reason reason() {
      return Reason.DependencyFailed;
    }

    @Override
    public JobPhase phase() {
      return JobPhase.Skipped;
    }
  }

  /** Reject the job (phase Rejected): reason InvalidSpec or DependencyCycle. */
  record Reject(Reason reason, String message) implements Decision {
    public Reject {
      if (reason != Reason.InvalidSpec && reason != Reason.DependencyCycle) {
        throw new IllegalArgumentException(reason + " is not a rejection reason");
      }
      Objects.requireNonNull(message, "message");
    }

    @Override
    public JobPhase phase() {
      return JobPhase.Rejected;
    }
  }
}
