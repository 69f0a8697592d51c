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
  /** Never ran because an ancestor failed, was skipped or was rejected. */
  Skipped,
  /** Never runs: its spec is invalid or it is part of a dependency cycle. */
  Rejected;

  /** True for phases after which nothing more happens to the job. */
  public boolean isFinished() {
    return this == Succeeded || this == Failed || this == Skipped || this == Rejected;
  }

  /** True for the phases that hold capacity, locks, a group slot and budget. */
  public boolean holdsReservation() {
    return this == Admitted || this == Running;
  }
}
