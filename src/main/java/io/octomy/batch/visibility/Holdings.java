package io.octomy.batch.visibility;

import io.octomy.batch.admission.Admission;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.Forecast;
import io.octomy.batch.admission.Gate;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.Snapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The jobs holding reservations at one job's turn in the next pass (those Admitted or Running, and
 * those the pass admits before it), each with its expected end: what frees what, and when.
 */
final class Holdings {

  /** A job holding its reservation, and when it is expected to end (null: not expected to). */
  record Holding(JobView job, Instant end) {}

  private final Map<JobKey, JobView> views = new HashMap<>();
  private final Map<JobKey, Holding> holding = new LinkedHashMap<>();

  /**
   * @param before how many of the next pass's admissions come before the job (all of them when the
   *     job is not in the pass)
   */
  Holdings(Snapshot snapshot, AdmissionResult next, Forecast forecast, int before) {
    for (JobView job : snapshot.jobs()) {
      views.put(job.key(), job);
      if (job.phase().holdsReservation()) {
        holding.put(job.key(), new Holding(job, forecast.end(job.key()).orElse(null)));
      }
    }
    List<Admission> admissions = next.admissions();
    for (int i = 0; i < Math.min(before, admissions.size()); i++) {
      Admission a = admissions.get(i);
      JobView job = views.get(a.job());
      if (job != null) {
        holding.put(
            a.job(),
            new Holding(job.withNodes(job.phase(), a.nodes()), forecast.end(a.job()).orElse(null)));
      }
    }
  }

  Optional<JobView> view(JobKey job) {
    return Optional.ofNullable(views.get(job));
  }

  Optional<Holding> holding(JobKey job) {
    return Optional.ofNullable(holding.get(job));
  }

  /**
   * The holder in the namespace whose end, with those ending before it, frees at least {@code
   * amount} of the resource; empty when all of them together free less.
   */
  Optional<Holding> firstToFree(String namespace, String resource, long amount) {
    List<Holding> holders = new ArrayList<>();
    for (Holding h : holding.values()) {
      if (h.job().namespace().equals(namespace)
          && h.end() != null
          && h.job().requests().getOrDefault(resource, 0L) > 0) {
        holders.add(h);
      }
    }
    holders.sort(Comparator.comparing(Holding::end));
    long freed = 0;
    for (Holding h : holders) {
      freed += h.job().requests().get(resource) * h.job().replicas(); // a gang frees them all
      if (freed >= amount) {
        return Optional.of(h);
      }
    }
    return Optional.empty();
  }

  /**
   * The holder on the node whose end, with those ending there before it, frees enough of every
   * resource the room is short of; empty when all of them together free too little.
   */
  Optional<Holding> firstToMakeRoom(Gate.NodeRoom room) {
    List<Holding> holders = new ArrayList<>();
    for (Holding h : holding.values()) {
      if (h.job().nodes().contains(room.node()) && h.end() != null) {
        holders.add(h);
      }
    }
    holders.sort(Comparator.comparing(Holding::end));
    Map<String, Long> missing = new HashMap<>();
    for (Gate.Room r : room.resources()) {
      // What must be freed: the shortfall, plus any allocation above the offer after a mode change.
      long need = r.request() - (r.offer() - r.allocated());
      if (r.request() > r.offer()) {
        return Optional.empty(); // the offer itself is too small: no end makes room
      }
      if (need > 0) {
        missing.put(r.resource(), need);
      }
    }
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    for (Holding h : holders) {
      // A gang frees what each of its replicas on this node holds.
      long here = h.job().nodes().stream().filter(room.node()::equals).count();
      missing.replaceAll((name, need) -> need - h.job().requests().getOrDefault(name, 0L) * here);
      if (missing.values().stream().allMatch(v -> v <= 0)) {
        return Optional.of(h);
      }
    }
    return Optional.empty();
  }
}
