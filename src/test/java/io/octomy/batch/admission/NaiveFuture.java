package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The forecast's reference: the whole admission pass run again at every time something can change
 * (each expected end, each moment a job starts starving), over a snapshot with the ended jobs
 * Succeeded and the admitted ones holding their nodes, nodes kept as fresh as they were. Slow and
 * obviously right; {@link ForecastPropertiesTest} holds {@link AdmissionPass#forecast} to it.
 */
final class NaiveFuture {

  record Start(Instant at, String node) {}

  private NaiveFuture() {}

  static Map<JobKey, Start> starts(Snapshot snapshot, RunTimeModel model) {
    Instant now = snapshot.now();
    Map<JobKey, JobView> jobs = new java.util.LinkedHashMap<>();
    snapshot.jobs().forEach(j -> jobs.put(j.key(), j));
    Map<JobKey, Instant> ends = new HashMap<>();
    TreeSet<Instant> times = new TreeSet<>();
    for (JobView j : snapshot.jobs()) {
      if (j.phase().holdsReservation()) {
        Instant end = model.expectedEnd(j);
        ends.put(j.key(), end.isBefore(now) ? now : end);
      }
      if (j.phase() == JobPhase.Queued) {
        Instant onset =
            j.queuedAt().plus(snapshot.policy().priority().starvationAfter()).plusNanos(1);
        if (onset.isAfter(now)) {
          times.add(onset);
        }
      }
    }
    times.addAll(ends.values());
    Map<JobKey, Start> starts = new HashMap<>();
    Instant t = now;
    boolean first = true; // the next pass sees the snapshot as it is, overdue jobs included
    while (true) {
      for (Map.Entry<JobKey, Instant> e :
          first ? Map.<JobKey, Instant>of().entrySet() : ends.entrySet()) {
        JobView j = jobs.get(e.getKey());
        if (j.phase().holdsReservation() && !e.getValue().isAfter(t)) {
          jobs.put(j.key(), j.withPhase(JobPhase.Succeeded, j.node()));
        }
      }
      Duration shift = Duration.between(now, t);
      List<NodeView> nodes = new ArrayList<>();
      for (NodeView n : snapshot.nodes()) {
        nodes.add(
            new NodeView(
                n.name(),
                n.mode(),
                n.ownMode(),
                n.capacity(),
                n.heartbeat() == null ? null : n.heartbeat().plus(shift),
                n.ready(),
                n.usage(),
                n.strayRuns(),
                n.labels()));
      }
      AdmissionResult result =
          AdmissionPass.decide(
              new Snapshot(
                  new ArrayList<>(jobs.values()), nodes, snapshot.policy(), t, snapshot.queues()));
      for (Map.Entry<JobKey, Decision> e : result.decisions().entrySet()) {
        JobView j = jobs.get(e.getKey());
        Decision d = e.getValue();
        if (d instanceof Decision.Admit a) {
          starts.put(j.key(), new Start(t, a.node()));
          jobs.put(j.key(), j.withNodes(JobPhase.Running, a.nodes()));
          Duration run = model.expectedRunTime(j);
          Instant end = t.plus(run.isZero() || run.isNegative() ? Duration.ofSeconds(1) : run);
          ends.put(j.key(), end);
          times.add(end);
        } else if (d.phase() != JobPhase.Queued) {
          jobs.put(j.key(), j.withPhase(d.phase(), null));
        }
      }
      Instant next = first ? times.ceiling(t) : times.higher(t);
      first = false;
      if (next == null) {
        return starts;
      }
      t = next;
    }
  }
}
