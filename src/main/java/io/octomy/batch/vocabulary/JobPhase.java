package io.octomy.batch.vocabulary;

/** The lifecycle phase of a BatchJob, as written in {@code status.phase}. */
public enum JobPhase {
  /** Waiting for admission; the only phase the admission pass decides about. */
  Queued,
  /**
   * Admitted to a node; it holds its reservation (capacity, locks, group slot, budget) from now on.
   */
  Admitted,
  /** Started on its node; it still holds its reservation. */
  Running,
  /** Finished with success; dependants may start. */
  Succeeded,
  /** Finished with failure; queued dependants are skipped. */
  Failed,
  /**
   * Not run because an ancestor failed, was skipped or was rejected; queued again if that changes.
   */
  Skipped,
  /**
   * Not run: its spec is invalid or it is part of a dependency cycle; queued again once the spec is
   * fixed or the cycle broken.
   */
  Rejected;

  /** True for phases that hold nothing and are not waiting: the job ran, or it will not run. */
  public boolean isFinished() {
    return this == Succeeded || this == Failed || this == Skipped || this == Rejected;
  }

  /**
   * True for the outcomes that are final: the job ran, and Succeeded or Failed. Skipped and
   * Rejected are not: they are decided again (a fixed ancestor, a broken cycle, an edited spec).
   */
  public boolean isFinal() {
    return this == Succeeded || this == Failed;
  }

  /** True for the phases that hold capacity, locks, a group slot and budget. */
  public boolean holdsReservation() {
    return this == Admitted || this == Running;
  }
}
