package io.octomy.batch.admission;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The outcome of one pass. {@code decisions} has an entry for every Queued job of the snapshot, in
 * the order the pass considered them (effective priority first), and for no other job: Admitted and
 * Running jobs only hold their reservations and need no new status, finished jobs are left alone.
 *
 * @param decisions Queued job to its decision, in pass order
 * @param admissions the admissions, in pass order (the Admit decisions of {@code decisions})
 * @param hold the node kept for a starving job in this pass, or null when there is none
 */
public record AdmissionResult(
    Map<JobKey, Decision> decisions, List<Admission> admissions, StarvationHold hold) {

  public AdmissionResult {
    decisions =
        decisions instanceof PassDecisions passOrder
            ? passOrder
            : Collections.unmodifiableMap(new LinkedHashMap<>(decisions));
    admissions = List.copyOf(admissions);
  }

  /** The decision for a job; empty when the job was not Queued. */
  public Optional<Decision> decision(JobKey job) {
    return Optional.ofNullable(decisions.get(job));
  }

  /** How many decisions carry each reason, for metrics. */
  public Map<Reason, Integer> countsByReason() {
    Map<Reason, Integer> counts = new EnumMap<>(Reason.class);
    decisions.values().forEach(d -> counts.merge(d.reason(), 1, Integer::sum));
    return Collections.unmodifiableMap(counts);
  }
}
