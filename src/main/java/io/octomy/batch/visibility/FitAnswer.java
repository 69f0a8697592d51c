package io.octomy.batch.visibility;

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
 */
public record FitAnswer(boolean admitted, String phase, String node, Explanation explanation) {
  public FitAnswer {
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(explanation, "explanation");
  }

  public List<Blocker> blockers() {
    return explanation.blockers();
  }
}
