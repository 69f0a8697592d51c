package io.octomy.batch.admission;

import java.util.List;

/**
 * What the dependencies of one Queued job say, before anything else is checked. For SKIP, {@code
 * ancestor} is the job that failed and {@code ancestorHow} how ("failed", "was skipped", ...).
 */
record DependencyVerdict(
    Kind kind, String message, List<WaitingOn> waitingOn, String ancestor, String ancestorHow) {

  enum Kind {
    /** Every dependency succeeded (or there is none). */
    READY,
    /** Some dependency has not succeeded yet, or does not exist yet. */
    WAIT,
    /** A failed, skipped or rejected ancestor: the job can never run. */
    SKIP,
    /** The job is part of a dependency cycle. */
    CYCLE,
    /** The job's own spec is invalid; dependencies were not looked at. */
    INVALID
  }

  static final DependencyVerdict READY =
      new DependencyVerdict(Kind.READY, "", List.of(), null, null);
  static final DependencyVerdict INVALID =
      new DependencyVerdict(Kind.INVALID, "", List.of(), null, null);
}
