package io.octomy.batch.admission;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Every gate one Queued job fails at its turn in a pass (after the admissions of the jobs before
 * it), in the order the pass checks them: its spec, dependencies, locks, group, budget, what a
 * starving job needs, capacity. Empty when the job is admitted.
 *
 * @param position 1-based place of the job in the pass order
 * @param fairShare the fair-share term in its priority; null without BatchQueues or for a job whose
 *     namespace two queues claim
 */
public record GateReport(
    JobKey job,
    int position,
    long effectivePriority,
    boolean starving,
    List<Gate> failing,
    FairShareTerm fairShare) {

  public GateReport {
    Objects.requireNonNull(job, "job");
    failing = List.copyOf(failing);
  }

  /** A report of a job in a snapshot without BatchQueues: no fair-share term. */
  public GateReport(
      JobKey job, int position, long effectivePriority, boolean starving, List<Gate> failing) {
    this(job, position, effectivePriority, starving, failing, null);
  }

  /** The fair-share term in its priority, with its numbers; empty without BatchQueues. */
  public Optional<FairShareTerm> fairShareTerm() {
    return Optional.ofNullable(fairShare);
  }

  /** The gate the pass decides on: the first that fails. */
  public Optional<Gate> first() {
    return failing.isEmpty() ? Optional.empty() : Optional.of(failing.get(0));
  }
}
