package io.octomy.batch.admission;

import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
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

  /**
   * For each decision, in pass order, the index of its job among {@code snapshot}'s jobs, which
   * must be the snapshot this result was decided over: so that a caller keeping something per
   * snapshot index reaches a decision's job without hashing its key, as the controller does for
   * each of ten thousand waiting jobs on every pass. A pass's own result reads them from its
   * arrays; a result built from a map (in tests) looks each key up once.
   *
   * @throws IllegalArgumentException when a decided job is not in {@code snapshot}
   */
  public int[] snapshotIndexes(Snapshot snapshot) {
    if (decisions instanceof PassDecisions pass) {
      if (pass.snapshotSize() != snapshot.jobs().size()) {
        throw new IllegalArgumentException(
            "decided over "
                + pass.snapshotSize()
                + " jobs, asked about a snapshot of "
                + snapshot.jobs().size());
      }
      return pass.snapshotIndexes();
    }
    Map<JobKey, Integer> indexOf = new HashMap<>();
    for (int i = 0; i < snapshot.jobs().size(); i++) {
      indexOf.put(snapshot.jobs().get(i).key(), i);
    }
    int[] out = new int[decisions.size()];
    int place = 0;
    for (JobKey job : decisions.keySet()) {
      Integer index = indexOf.get(job);
      if (index == null) {
        throw new IllegalArgumentException(job + " was decided but is not in the snapshot");
      }
      out[place++] = index;
    }
    return out;
  }

  /** How many decisions carry each reason, for metrics. */
  public Map<Reason, Integer> countsByReason() {
    Map<Reason, Integer> counts = new EnumMap<>(Reason.class);
    decisions.values().forEach(d -> counts.merge(d.reason(), 1, Integer::sum));
    return Collections.unmodifiableMap(counts);
  }
}
