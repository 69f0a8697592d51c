package io.octomy.batch.visibility;

import java.util.List;
import java.util.Objects;

/**
 * Why a Queued job is not admitted now: its place in the queue and every blocker it faces, in the
 * order the pass checks them (the first is the reason the pass gives). Empty blockers: the next
 * pass admits it.
 */
public record Explanation(QueuedJob job, List<Blocker> blockers) {
  public Explanation {
    Objects.requireNonNull(job, "job");
    blockers = List.copyOf(blockers);
  }
}
