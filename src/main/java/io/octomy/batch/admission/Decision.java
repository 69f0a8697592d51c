package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.List;
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
   */
  record Admit(String node, NodeMode mode, long effectivePriority, boolean starving)
      implements Decision {
    public Admit {
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(mode, "mode");
      if (mode == NodeMode.Off) {
        throw new IllegalArgumentException("no job is admitted where Off applies");
      }
    }

    @Override
    public Reason reason() {
      return Reason.Admitted;
    }

    @Override
    public String message() {
      return "admitted to node " + node + ".";
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
