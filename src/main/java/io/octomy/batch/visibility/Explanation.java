package io.octomy.batch.visibility;

import io.octomy.batch.admission.FairShareTerm;
import java.util.List;
import java.util.Objects;

/**
 * Why a Queued job is not admitted now: its place in the queue and every blocker it faces, in the
 * order the pass checks them (the first is the reason the pass gives). Empty blockers: the next
 * pass admits it. {@code fairShare} is the fair-share term in its priority with its numbers, null
 * without BatchQueues.
 */
public record Explanation(QueuedJob job, List<Blocker> blockers, FairShareTerm fairShare) {
  public Explanation {
    Objects.requireNonNull(job, "job");
    blockers = List.copyOf(blockers);
  }

  /** An explanation without a fair-share term (no BatchQueue). */
  public Explanation(QueuedJob job, List<Blocker> blockers) {
    this(job, blockers, null);
  }
}
