package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** How each BatchQueue stands once a pass has decided: for the queues' statuses. */
final class QueueStandings {

  private QueueStandings() {}

  /** How each BatchQueue stands after the pass's admissions, by name; empty without queues. */
  static List<QueueStanding> of(PassState pass) {
    QueueTree queueTree = pass.queueTree();
    QueueLedger queueLedger = pass.queueLedger();
    ResourceIndex resources = pass.resources();
    if (queueLedger == null) {
      return List.of();
    }
    int n = queueTree.size();
    // Counted at each job's own queue, then added up each queue's chain once.
    long[] pendingHere = new long[n];
    long[] admittedHere = new long[n];
    for (PreparedJob job : pass.jobs()) {
      if (job.queue < 0) {
        continue;
      }
      boolean queued = job.reading.phase == JobPhase.Queued;
      // An array job is Running on no node while its items run: they are counted, it is not.
      boolean holds =
          queued
              ? job.reservedOn >= 0
              : job.reading.phase.holdsReservation() && job.reading.node != null;
      if (holds) {
        admittedHere[job.queue]++;
      } else if (queued && !job.reading.held) {
        pendingHere[job.queue]++;
      }
    }
    long[] pending = new long[n];
    long[] admitted = new long[n];
    boolean[] hasWork = new boolean[n];
    for (int here = 0; here < n; here++) {
      if (pendingHere[here] + admittedHere[here] == 0) {
        continue;
      }
      for (int q : queueTree.chain(here)) {
        hasWork[q] = true;
        admitted[q] += admittedHere[here];
        pending[q] += pendingHere[here];
      }
    }
    FairShare after = pass.newFairShare(hasWork);
    Map<String, List<String>> conflicts = new HashMap<>();
    for (QueueView view : pass.snapshot().queues()) {
      for (String ns : view.namespaces()) {
        List<String> others = new ArrayList<>(queueTree.claimants(ns));
        others.remove(view.name());
        if (!others.isEmpty()) {
          conflicts
              .computeIfAbsent(view.name(), k -> new ArrayList<>())
              .add(
                  "namespace "
                      + ns
                      + " is claimed by queue "
                      + String.join(" and ", others)
                      + " too");
        }
      }
    }
    List<QueueStanding> out = new ArrayList<>();
    for (int q = 0; q < queueTree.defaultQueue(); q++) {
      Map<String, Long> usage = new TreeMap<>();
      for (int r = 0; r < resources.count(); r++) {
        if (queueLedger.used(q, r) > 0) {
          usage.put(resources.name(r), queueLedger.used(q, r));
        }
      }
      String problem = null;
      if (queueTree.cycle(q) != null) {
        problem =
            (queueTree.onCycle(q) ? "in a cycle of parents (" : "below a cycle of parents (")
                + queueTree.cycle(q)
                + "): its jobs wait until one spec.parent breaks it.";
      } else if (conflicts.containsKey(queueTree.name(q))) {
        problem =
            String.join("; ", conflicts.get(queueTree.name(q)))
                + ": the jobs there wait until one queue lets the namespace go.";
      }
      out.add(
          new QueueStanding(
              queueTree.name(q),
              usage,
              after.dominant(q),
              after.deserved(q),
              after.term(q),
              pending[q],
              admitted[q],
              problem));
    }
    return out;
  }
}
