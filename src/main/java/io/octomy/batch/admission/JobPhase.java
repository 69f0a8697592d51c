package io.octomy.batch.admission;

/** Where a job is in its life. */
public enum JobPhase {
  Queued, Admitted, Running, Succeeded, Failed, Skipped, Rejected;

  /** Finished jobs hold nothing and are never decided again. */
  public boolean isFinished() {
    return this == Succeeded || this == Failed || this == Skipped || this == Rejected;
  }

  /** Admitted and running jobs hold capacity, locks, group slots and budget. */
  public boolean holdsReservation() {
    return this == Admitted || this == Running;
  }
}
