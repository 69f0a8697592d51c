package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.Executor;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.controller.ClusterWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * (c) A competing writer (as a GitOps tool re-applying labels would) rewrites the jobs' metadata as
 * fast as the server takes it while the controller decides, so the controller's conditional status
 * writes meet 409 after 409. Afterwards: every job decided, every acknowledged write of the
 * competitor still there, and the invariants held throughout.
 */
final class ConflictStormFault {

  record Result(
      int jobs,
      Duration storm,
      long competitorWrites,
      double controllerConflicts,
      double controllerWrites,
      long undecided,
      long competitorWritesLost,
      long jobsMissing,
      List<String> violations,
      double convergeSeconds) {
    boolean passed() {
      return undecided == 0
          && competitorWritesLost == 0
          && jobsMissing == 0
          && violations.isEmpty();
    }

    @Override
    public String toString() {
      return String.format(
          "409 storm: %d jobs, competitor wrote %d times in %d s; controller status writes %.0f written,"
              + " %.0f answered 409; after the storm: undecided %d, competitor writes lost %d, jobs missing %d,"
              + " invariant violations %d; converged %.1f s after the storm ended",
          jobs,
          competitorWrites,
          storm.toSeconds(),
          controllerWrites,
          controllerConflicts,
          undecided,
          competitorWritesLost,
          jobsMissing,
          violations.size(),
          convergeSeconds);
    }
  }

  private ConflictStormFault() {}

  static Result run(Path work, int nodes, int jobs, Duration storm, long seed) throws Exception {
    Workload w = new Workload(nodes, jobs, Executor.Process, seed, Duration.ofHours(1));
    try (Cluster c = new Cluster(work.resolve("state"))) {
      c.namespaces(w);
      c.nodes(w);
      List<BatchJob> made = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        made.add(w.job(i));
      }
      try (Invariants inv = new Invariants(c.client, w.policy());
          KubernetesClient ctlClient =
              new KubernetesClientBuilder().withConfig(c.server.clientConfig()).build()) {
        BatchController controller =
            BatchController.start(ctlClient, w.controllerOptions(), Clock.systemUTC());
        Map<String, Long> lastAcked = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong competitor = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          Random r = new Random(seed + t);
          int lane = t; // each thread owns every 4th job, so one job's writes are never concurrent
          Thread th =
              new Thread(
                  () -> {
                    while (!stop.get()) {
                      BatchJob j = made.get(lane + 4 * r.nextInt(made.size() / 4));
                      String ns = j.getMetadata().getNamespace();
                      String name = j.getMetadata().getName();
                      try {
                        if (c.client.resources(BatchJob.class).inNamespace(ns).withName(name).get()
                            == null) {
                          // Created below while the storm already runs; not there yet.
                          continue;
                        }
                        long v = competitor.incrementAndGet();
                        c.client
                            .resources(BatchJob.class)
                            .inNamespace(ns)
                            .withName(name)
                            .edit(
                                x -> {
                                  x.getMetadata()
                                      .setLabels(new HashMap<>(Map.of("storm", Long.toString(v))));
                                  return x;
                                });
                        lastAcked.merge(ns + "/" + name, v, Math::max);
                      } catch (KubernetesClientException e) {
                        // a 409 for the competitor too: it simply tries another job
                      }
                    }
                  });
          threads.add(th);
          th.start();
        }
        c.jobs(w); // created during the storm
        Thread.sleep(storm.toMillis());
        stop.set(true);
        for (Thread th : threads) {
          th.join();
        }
        long stormEnd = System.nanoTime();
        long deadline = stormEnd + Duration.ofSeconds(60).toNanos();
        long undecided = jobs;
        while (System.nanoTime() < deadline) {
          undecided =
              inv.jobs().stream()
                  .filter(j -> j.getStatus() == null || j.getStatus().getReason() == null)
                  .count();
          if (undecided == 0) {
            break;
          }
          Thread.sleep(100);
        }
        double converge = (System.nanoTime() - stormEnd) / 1e9;
        Map<String, BatchJob> now = new HashMap<>();
        for (BatchJob j : c.client.resources(BatchJob.class).inAnyNamespace().list().getItems()) {
          now.put(DecisionWatch.key(j), j);
        }
        long missing = made.stream().filter(j -> !now.containsKey(DecisionWatch.key(j))).count();
        long lost =
            lastAcked.entrySet().stream()
                .filter(
                    e -> {
                      BatchJob j = now.get(e.getKey());
                      String label =
                          j == null || j.getMetadata().getLabels() == null
                              ? null
                              : j.getMetadata().getLabels().get("storm");
                      return label == null || Long.parseLong(label) < e.getValue();
                    })
                .count();
        Result res =
            new Result(
                jobs,
                storm,
                competitor.get(),
                controller.metrics().statusWrites(ClusterWriter.Result.CONFLICT),
                controller.metrics().statusWrites(ClusterWriter.Result.WRITTEN),
                undecided,
                lost,
                missing,
                inv.violations(),
                converge);
        controller.close();
        return res;
      }
    }
  }
}
