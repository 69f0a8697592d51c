package io.octomy.batch.controller;

import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The decisions of the last pass whose composed status was the job's own (priority aside), so that
 * the next pass need not compose them again: a long queue is decided again on every pass, and
 * composing each waiting job's status (a copy of it, then a comparison) cost more than the pass.
 *
 * <p>A decision counts as unchanged only for the very same cached object (the informer replaces a
 * job's object on every change, so any edit or write of its status is a new object), an equal
 * decision and the same queue time: then the status composed would be the same as last time, since
 * composing reads nothing else but the clock, and the clock only stamps what changes. Used by the
 * admission loop's thread alone.
 */
final class UnchangedStatuses {

  private record Seen(BatchJob job, Decision decision, Instant queuedAt) {}

  private Map<JobKey, Seen> last = new HashMap<>();
  private Map<JobKey, Seen> next = new HashMap<>();

  /**
   * Whether the last pass found this decision of this object already written; if so it is kept for
   * the pass after.
   */
  boolean stillWritten(JobKey key, BatchJob job, Decision decision, Instant queuedAt) {
    Seen seen = last.get(key);
    if (seen != null
        && seen.job() == job
        && seen.decision().equals(decision)
        && Objects.equals(seen.queuedAt(), queuedAt)) {
      next.put(key, seen);
      return true;
    }
    return false;
  }

  /** This pass composed the job's own status for the decision. */
  void written(JobKey key, BatchJob job, Decision decision, Instant queuedAt) {
    next.put(key, new Seen(job, decision, queuedAt));
  }

  /** The pass is over: what it saw is what the next pass compares with. */
  void passDone() {
    last = next;
    next = new HashMap<>(last.size() * 2);
  }
}
