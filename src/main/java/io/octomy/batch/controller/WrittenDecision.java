package io.octomy.batch.controller;

import io.octomy.batch.admission.Decision;
import io.octomy.batch.api.BatchJob;
import java.time.Instant;
import java.util.Objects;

/**
 * The decision whose composed status a job's cached object already holds (priority aside), kept
 * with the job's view between passes ({@link SnapshotBuilder.PassViews}) so that the next pass need
 * not compose it again: a long queue is decided again on every pass, and composing each waiting
 * job's status (a copy of it, then a comparison) cost more than the pass.
 *
 * <p>A decision counts as written only for the very same cached object (the informer replaces a
 * job's object on every change, so any edit or write of its status is a new object), an equal
 * decision and the same queue time: then the status composed would be the same as last time, since
 * composing reads nothing else but the clock, and the clock only stamps what changes. It stays true
 * through passes that do not decide the job (while a write of ours is out, say) for the same
 * reason: the object it was found in has not changed. Used by the admission loop's thread alone.
 */
final class WrittenDecision {

  private BatchJob job;
  private Decision decision;
  private Instant queuedAt;

  /** Whether a pass found this decision of this object already written. */
  boolean stillWritten(BatchJob job, Decision decision, Instant queuedAt) {
    return this.job == job
        && job != null
        && this.decision.equals(decision)
        && Objects.equals(this.queuedAt, queuedAt);
  }

  /** A pass composed the job's own status for the decision. */
  void written(BatchJob job, Decision decision, Instant queuedAt) {
    this.job = job;
    this.decision = decision;
    this.queuedAt = queuedAt;
  }
}
