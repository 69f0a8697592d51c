package io.octomy.batch.admission;

/**
 * The reason codes written to {@code status.reason}. The enum constant names are the codes
 * themselves (CamelCase, as {@code kubectl get} shows them); {@link #code()} returns that string.
 */
public enum Reason {
  Admitted,
  /**
   * {@code spec.suspend} is true: the job stays Queued, out of every pass, until it is set false.
   */
  Held,
  /**
   * A retry after a failed run ({@code spec.backoffLimit}) waits out its back-off; the message
   * names the time it may run again.
   */
  BackingOff,
  WaitingForDependency,
  /** Phase Skipped: a failed, skipped or rejected ancestor; the message names it. */
  DependencyFailed,
  /** Phase Rejected: the job is part of a dependency cycle; the message names the cycle. */
  DependencyCycle,
  WaitingForLock,
  WaitingForGroup,
  WaitingForBudget,
  /**
   * Its namespace is claimed by two or more BatchQueues, so it belongs to none; the message names
   * them.
   */
  QueueConflict,
  /** Its BatchQueue is in (or below) a cycle of parents; the message names the cycle. */
  QueueCycle,
  /** Admitted now, it would take its BatchQueue (or one above it) over its max. */
  WaitingForQueueMax,
  /** Fits some ready node's full offer, but no node's free share now. */
  WaitingForCapacity,
  /** No ready node could ever hold it in its current mode, or there is no ready node. */
  NoNodeFits,
  /**
   * A starving job of higher priority is being kept room for on the only node where this one fits.
   */
  HeldForStarvingJob,
  /**
   * A BestEffort job that would fit, but every ready node it could run on is busy: it measures at
   * least as much of some resource in use as it offers. Deferred first, as the class promises.
   */
  BestEffortDeferred,
  /**
   * Another BatchQueue is reclaiming its min, and this job, of a queue outside it, would take what
   * that queue's next job needs on the node kept for it; the message names the queue and its
   * numbers, e.g. "held for queue team-a, which is reclaiming its min: it holds 2000 of its min of
   * 6000 octomy.io/cpu-milli, so node ws-1, where this job would fit, is kept for its job
   * team-a/solve-3; capacity that frees up there goes to team-a first."
   */
  HeldForQueueMinimum,
  /** Phase Rejected: the spec is invalid; the message says what to write instead. */
  InvalidSpec,
  Succeeded,
  Failed;

  /** The code as written to the status, e.g. {@code "WaitingForCapacity"}. */
  public String code() {
    return name();
  }

  /** True for the reasons of a {@link Decision.Wait}: the job stays Queued. */
  public boolean isWait() {
    return switch (this) {
      case Held,
          BackingOff,
          WaitingForDependency,
          WaitingForLock,
          WaitingForGroup,
          WaitingForBudget,
          QueueConflict,
          QueueCycle,
          WaitingForQueueMax,
          WaitingForCapacity,
          NoNodeFits,
          HeldForStarvingJob,
          HeldForQueueMinimum,
          BestEffortDeferred ->
          true;
      default -> false;
    };
  }
}
