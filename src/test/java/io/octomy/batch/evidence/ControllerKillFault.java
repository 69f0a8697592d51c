package io.octomy.batch.evidence;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.Executor;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * (a) kill -9 of the controller at random points while it drains a run: the API server stays up in
 * this JVM, the controller runs in a child JVM that is killed and restarted; Pods succeed after a
 * short run; an invariant watcher checks every change. A last controller then finishes the run.
 */
final class ControllerKillFault {

  record Result(
      int kills,
      int killedAfterActive,
      int jobs,
      int nodes,
      Map<String, Long> finalPhases,
      long podsCompleted,
      long admittedTwice,
      long startedTwice,
      List<String> violations,
      long checks,
      double seconds) {

    boolean passed() {
      return admittedTwice == 0 && startedTwice == 0 && violations.isEmpty();
    }

    @Override
    public String toString() {
      return String.format(
          "controller kill -9: %d kills (%d after the controller was active), %d jobs on %d Pod nodes,"
              + " %d Pods completed; final phases %s; admitted twice %d, started twice %d, invariant violations %d"
              + " (%d checks); %.0f s%s",
          kills,
          killedAfterActive,
          jobs,
          nodes,
          podsCompleted,
          finalPhases,
          admittedTwice,
          startedTwice,
          violations.size(),
          checks,
          seconds,
          violations.isEmpty() ? "" : " " + violations.subList(0, Math.min(5, violations.size())));
    }
  }

  private ControllerKillFault() {}

  static Result run(Path work, int kills, int nodes, int jobs, long seed) throws Exception {
    long t0 = System.nanoTime();
    Workload w = new Workload(nodes, jobs, Executor.Pod, seed, Duration.ofHours(1));
    Random random = new Random(seed);
    try (Cluster c = new Cluster(work.resolve("state"))) {
      c.namespaces(w);
      c.nodes(w);
      try (Invariants inv = new Invariants(c.client, w.policy());
          PodCompleter kubelet = new PodCompleter(c.client, seed, 200, 1500)) {
        c.jobs(w);
        String[] args = {c.server.kubeconfig().toString(), "" + nodes, "" + jobs, "" + seed};
        int afterActive = 0;
        for (int k = 0; k < kills; k++) {
          Path log = work.resolve("controller-" + k + ".log");
          try (ChildJvm ctl =
              ChildJvm.start(log, "256m", ControllerProcessMain.class.getName(), args)) {
            // Half the kills land at a random moment after start-up (mid-pass, mid-write),
            // half at a random moment from launch (often during start-up and the first list).
            if (random.nextBoolean()) {
              ctl.awaitLine("ACTIVE", Duration.ofSeconds(60));
              Thread.sleep(random.nextInt(2500));
            } else {
              Thread.sleep(300 + random.nextInt(3500));
            }
            if (ctl.hasLine("ACTIVE")) {
              afterActive++;
            }
            ctl.kill9();
          }
        }
        // The last controller is left alone to finish the run.
        try (ChildJvm ctl =
            ChildJvm.start(
                work.resolve("controller-final.log"),
                "256m",
                ControllerProcessMain.class.getName(),
                args)) {
          ctl.awaitLine("ACTIVE", Duration.ofSeconds(60));
          long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
          String last = "";
          long lastChange = System.nanoTime();
          while (System.nanoTime() < deadline) {
            Map<String, Long> phases = phases(inv.jobs());
            if (!phases.toString().equals(last)) {
              last = phases.toString();
              lastChange = System.nanoTime();
            }
            boolean busy =
                phases.getOrDefault("Admitted", 0L) + phases.getOrDefault("Running", 0L) > 0;
            if (!busy && System.nanoTime() - lastChange > Duration.ofSeconds(10).toNanos()) {
              break; // nothing runs and nothing has moved for 10 s: whatever still waits cannot
              // start
            }
            Thread.sleep(500);
          }
        }
        return new Result(
            kills,
            afterActive,
            jobs,
            nodes,
            phases(inv.jobs()),
            kubelet.completed(),
            inv.admittedTwice(),
            inv.startedTwice(),
            inv.violations(),
            inv.checks(),
            (System.nanoTime() - t0) / 1e9);
      }
    }
  }

  static Map<String, Long> phases(List<BatchJob> jobs) {
    Map<String, Long> out = new TreeMap<>();
    for (BatchJob j : jobs) {
      JobPhase p = j.getStatus() == null ? null : j.getStatus().getPhase();
      String k =
          p == null
              ? "(undecided)"
              : p == JobPhase.Queued ? "Queued/" + j.getStatus().getReason() : p.name();
      out.merge(k, 1L, Long::sum);
    }
    return out;
  }
}
