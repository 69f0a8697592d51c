package io.octomy.batch.visibility;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a job that does not exist yet would get if it were created now: the next pass's decision for
 * it, its place and expected start, and every blocker with its remedy. Nothing is created.
 *
 * @param admitted whether the next pass would admit it
 * @param phase the phase it would be given ({@code Queued} while it waits, {@code Rejected} for an
 *     invalid spec or a dependency cycle, {@code Skipped} for a failed dependency)
 * @param node the node the next pass would admit it to; null when it is not admitted
 * @param explanation its place, expected start and blockers; for an array job, those of its first
 *     item
 * @param array for an array job, its size and when its last item is expected to end; null otherwise
 */
public record FitAnswer(
    boolean admitted, String phase, String node, Explanation explanation, ArrayEnd array) {
  public FitAnswer {
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(explanation, "explanation");
  }

  /**
   * An array job's size and expected end.
   *
   * @param count {@code spec.array.count}
   * @param maxRunning at most this many items unfinished at once
   * @param expectedEnd when its last item is expected to end; null when it is not expected to
   */
  public record ArrayEnd(int count, int maxRunning, Instant expectedEnd) {}

  public List<Blocker> blockers() {
    return explanation.blockers();
  }
}
