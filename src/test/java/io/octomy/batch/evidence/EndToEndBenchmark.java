package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.micrometer.core.instrument.Timer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Executor;
import io.octomy.batch.cli.AsyncCompletionPool;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.controller.ClusterWriter;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.Finalizers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * End-to-end: the controller against the embedded API server, compared with that server's own
 * ceiling for status writes. One JVM holds the server, the controller and the benchmark's clients
 * (as standalone mode does), and the controller and the ceiling's writers reach the server as
 * standalone's controller does ({@link BenchmarkServer#controllerClient}); the benchmark's creates
 * and watch are a user's. See docs/benchmarks.md for the command and figures.
 *
 * <ol>
 *   <li>with {@code --warmup-drains N}: the nodes, then N unmeasured drains ({@link WarmUpDrain});
 *   <li>W_max: status writes/s on pre-made jobs, 8 writer threads, no admission logic; then the
 *       same with a user's watch on those jobs, as the drain's jobs have the benchmark's;
 *   <li>N nodes (agents simulated by status writes) and M jobs created by 8 client threads;
 *   <li>the controller starts on that backlog: decisions/s, drain time, requests per admission;
 *   <li>with the controller running, L more jobs arrive at once: create-to-decision latency;
 *   <li>the clock moves one minute per aging tick: status writes to waiting jobs;
 *   <li>W_max again on the same server, the controller stopped: the ceiling after the run.
 * </ol>
 *
 * <p>{@code --jfr-drain FILE} (with {@code -XX:StartFlightRecording}) writes the recording at the
 * drain's end and prints the drain's instants, to read its samples alone.
 */
public final class EndToEndBenchmark {

  private static final int WRITERS = AdmissionLoop.Settings.defaults().writeThreads();

  private EndToEndBenchmark() {}

  public static void main(String[] argv) throws Exception {
    // This JVM holds what standalone's does, so it starts as standalone's command line does.
    AsyncCompletionPool.ensure();
    Args a =
        new Args(
            argv,
            Map.ofEntries(
                Map.entry("nodes", "1000"),
                Map.entry("jobs", "10000"),
                Map.entry("live-jobs", "1000"),
                Map.entry("wmax-jobs", "1000"),
                Map.entry("wmax-seconds", "10"),
                Map.entry("aging-ticks", "5"),
                Map.entry("drain-timeout-s", "480"),
                Map.entry("seed", "42"),
                Map.entry("servers", "standalone,real"),
                Map.entry("warmup-drains", "0"),
                Map.entry("jfr-drain", ""),
                Map.entry("created-with-finalizer", "false")));
    System.out.println("end-to-end benchmark " + a);
    // The same workload against each server, one after the other in this run, so the figures
    // can be compared with each other (the machine is shared: compare within a run).
    for (String server : a.string("servers").split(",")) {
      run(a, server);
    }
    System.exit(0);
  }

  private static void run(Args a, String serverName) throws Exception {
    System.out.println();
    System.out.println("=== server: " + serverName + " ===");
    Workload w =
        new Workload(
            a.integer("nodes"),
            a.integer("jobs"),
            Executor.Process,
            a.integer("seed"),
            Duration.ofHours(1));
    Path state = Files.createTempDirectory("octomy-e2e");
    HeapWatch heap = new HeapWatch();
    try (BenchmarkServer server = BenchmarkServer.open(serverName, state);
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.config()).build();
        // The ceiling's writers reach the server as the controller does.
        KubernetesClient ceilingClient = server.controllerClient(b -> {})) {
      for (String ns : w.namespaces()) {
        client
            .namespaces()
            .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
            .create();
      }
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName("wmax").endMetadata().build())
          .create();

      // With --warmup-drains N: the nodes first, then N unmeasured drains of the same jobs, so
      // that (a) and everything after it measure a server that has served them before.
      int warmups = a.integer("warmup-drains");
      if (warmups > 0) {
        createNodes(client, w);
        for (int k = 0; k < warmups; k++) {
          WarmUpDrain.run(
              client, server, w, WRITERS, Duration.ofSeconds(a.integer("drain-timeout-s")));
        }
      }

      // (a) The server's ceiling.
      WriteCeiling.Result wmax =
          WriteCeiling.measure(
              ceilingClient,
              w,
              "wmax",
              a.integer("wmax-jobs"),
              WRITERS,
              Duration.ofSeconds(8),
              Duration.ofSeconds(a.integer("wmax-seconds")));
      System.out.printf(
          "W_max: %.0f status writes/s (%d writes in %.1f s, %d failed, %d writer threads);"
              + " this JVM's processor time per write %s%n",
          wmax.writesPerSecond(),
          wmax.writes(),
          wmax.measured().toMillis() / 1000.0,
          wmax.failures(),
          WRITERS,
          wmax.processorPerWrite());

      // (a') The same ceiling with one user's watch on the written jobs, as the drain's writes
      // have the benchmark's: what the observer alone adds to each write.
      AtomicLong watchedEvents = new AtomicLong();
      WriteCeiling.Result watchedWmax = watchedCeiling(client, ceilingClient, w, a, watchedEvents);
      System.out.printf(
          "W_max with a user's watch: %.0f status writes/s (%d writes in %.1f s, %d events seen"
              + " in all, %d failed); this JVM's processor time per write %s%n",
          watchedWmax.writesPerSecond(),
          watchedWmax.writes(),
          watchedWmax.measured().toMillis() / 1000.0,
          watchedEvents.get(),
          watchedWmax.failures(),
          watchedWmax.processorPerWrite());

      // (b) Nodes and their agents' first report.
      heap.reset();
      if (warmups == 0) {
        createNodes(client, w);
      }

      DecisionWatch decisions = new DecisionWatch(client);
      Map<String, Long> createdAt = new ConcurrentHashMap<>();
      // --created-with-finalizer true: the jobs (the backlog's and the live step's) carry the
      // controller's finalizer as the chart's webhook puts it on at create (standalone's server
      // does so by itself); the backlog is made before the controller, which serves that webhook,
      // starts, and this controller serves no webhook.
      boolean withFinalizer = Boolean.parseBoolean(a.string("created-with-finalizer"));
      long t = System.nanoTime();
      int jobs = w.jobs;
      Parallel.forEach(
          jobs,
          WRITERS,
          i -> {
            BatchJob j = w.job(i);
            if (withFinalizer) {
              j.getMetadata().setFinalizers(List.of(Finalizers.RESERVATION));
            }
            client
                .resources(BatchJob.class)
                .inNamespace(j.getMetadata().getNamespace())
                .resource(j)
                .create();
            createdAt.put(DecisionWatch.key(j), System.nanoTime());
          });
      double createSeconds = secondsSince(t);
      System.out.printf(
          "jobs: %d created in %.1f s (%.0f creates/s, %d client threads)%n",
          jobs, createSeconds, jobs / createSeconds, WRITERS);

      // (c) The controller on the backlog.
      RequestCounter requests = new RequestCounter();
      TestClock clock = TestClock.followingSystem();
      try (KubernetesClient ctlClient =
          server.controllerClient(b -> b.addOrReplaceInterceptor("count", requests))) {
        long start = System.nanoTime();
        JvmProcessorTime drainCpu = JvmProcessorTime.now();
        DrainRecording recording = DrainRecording.start(a.string("jfr-drain"));
        BatchController controller = BatchController.start(ctlClient, w.controllerOptions(), clock);
        System.out.printf("controller started in %.1f s (informers synced)%n", secondsSince(start));
        long deadline = start + Duration.ofSeconds(a.integer("drain-timeout-s")).toNanos();
        long t10 = 0;
        long t90 = 0;
        while (decisions.decided() < jobs && System.nanoTime() < deadline) {
          Thread.sleep(20);
          if (t10 == 0 && decisions.decided() >= jobs / 10) {
            t10 = System.nanoTime();
          }
          if (t90 == 0 && decisions.decided() >= jobs * 9 / 10) {
            t90 = System.nanoTime();
          }
        }
        long end = System.nanoTime();
        recording.stop();
        int decided = decisions.decided();
        String perDecision = JvmProcessorTime.now().perOperationSince(drainCpu, decided);
        double drain = (end - start) / 1e9;
        double rate = decided / drain;
        double steady = t90 > t10 && t10 > 0 ? (jobs * 0.8) / ((t90 - t10) / 1e9) : Double.NaN;
        long admitted = decisions.admitted();
        long backlogRequests = requests.total();
        System.out.printf(
            "drain: %d of %d jobs decided in %.1f s from controller start%s;"
                + " this JVM's processor time per decided job %s%n",
            decided, jobs, drain, decided < jobs ? " (TIMED OUT)" : "", perDecision);
        Timer drainPasses = controller.metrics().registry().find("octomy_decision_pass").timer();
        System.out.printf(
            "  passes until then: %d, %.0f ms in all%n",
            drainPasses.count(), drainPasses.totalTime(TimeUnit.MILLISECONDS));
        System.out.printf(
            "decisions/s: %.0f overall = %.2f x W_max; %.0f between 10%% and 90%% decided = %.2f x W_max%n",
            rate, rate / wmax.writesPerSecond(), steady, steady / wmax.writesPerSecond());
        System.out.printf(
            "  over W_max with a user's watch: %.2f overall, %.2f between 10%% and 90%%%n",
            rate / watchedWmax.writesPerSecond(), steady / watchedWmax.writesPerSecond());
        System.out.printf(
            "admitted: %d; status after drain: %s%n", admitted, decisions.reasonsNow());
        System.out.printf(
            "controller API requests during drain: %d = %.2f per admitted job, %.2f per decided job%n",
            backlogRequests,
            backlogRequests / (double) admitted,
            backlogRequests / (double) decided);
        System.out.println("  by kind: " + requests.byKind());
        System.out.println("  by response code: " + requests.byCode());
        System.out.println(
            "  backlog create->decision (includes waiting in the backlog): "
                + latencies(createdAt, decisions).summary());

        // (d) Live arrivals: L more jobs created at once while the controller runs.
        waitQuiet(decisions, Duration.ofSeconds(3), Duration.ofSeconds(60));
        int live = a.integer("live-jobs");
        Map<String, Long> liveCreated = new ConcurrentHashMap<>();
        long before = requests.total();
        Timer passes = controller.metrics().registry().find("octomy_decision_pass").timer();
        long passesBefore = passes.count();
        double passMillisBefore = passes.totalTime(TimeUnit.MILLISECONDS);
        long liveStart = System.nanoTime();
        Parallel.forEach(
            live,
            WRITERS,
            k -> {
              BatchJob j = w.job(jobs + k);
              if (withFinalizer) {
                j.getMetadata().setFinalizers(List.of(Finalizers.RESERVATION));
              }
              client
                  .resources(BatchJob.class)
                  .inNamespace(j.getMetadata().getNamespace())
                  .resource(j)
                  .create();
              liveCreated.put(DecisionWatch.key(j), System.nanoTime());
            });
        double liveCreate = secondsSince(liveStart);
        while (decisions.decided() < jobs + live
            && System.nanoTime() < liveStart + Duration.ofSeconds(120).toNanos()) {
          Thread.sleep(10);
        }
        System.out.printf(
            "live: %d jobs created at once in %.1f s, all decided %.1f s after the first create%n",
            live, liveCreate, secondsSince(liveStart));
        System.out.println(
            "  live create->decision: " + latencies(liveCreated, decisions).summary());
        System.out.printf("  controller requests for them: %d%n", requests.total() - before);
        System.out.printf(
            "  passes until then: %d, %.0f ms in all%n",
            passes.count() - passesBefore,
            passes.totalTime(TimeUnit.MILLISECONDS) - passMillisBefore);

        // (e) Aging. First let the wording refresh run once: messages that changed during the drain
        // (e.g. how much a node has free) are written at most once per messageRefresh (30 s),
        // which the first clock move passes.
        waitQuiet(decisions, Duration.ofSeconds(3), Duration.ofSeconds(60));
        Duration tick = AdmissionLoop.Settings.defaults().tick();
        long refreshBefore = decisions.waitingSameDecisionRewrites();
        clock.advance(Duration.ofMinutes(1));
        Thread.sleep(tick.toMillis() * 2);
        waitQuiet(decisions, Duration.ofSeconds(3), Duration.ofSeconds(60));
        System.out.printf(
            "wording refresh (once, after messageRefresh): %d writes to waiting jobs with the same decision%n",
            decisions.waitingSameDecisionRewrites() - refreshBefore);
        decisions.sameDecisionSamples().forEach(x -> System.out.println("  e.g. " + x));
        // Then the aging ticks proper: the clock moves a minute per tick; nothing else changes.
        long waiting = decisions.waitingNow();
        double writesBefore = controller.metrics().statusWrites(ClusterWriter.Result.WRITTEN);
        long rewritesBefore = decisions.waitingRewrites();
        long sameBefore = decisions.waitingSameDecisionRewrites();
        long putsBefore = requests.count("PUT batchjobs/status");
        int ticks = a.integer("aging-ticks");
        for (int k = 0; k < ticks; k++) {
          clock.advance(Duration.ofMinutes(1));
          Thread.sleep(tick.toMillis() + 300);
        }
        Thread.sleep(1000);
        double agingWrites =
            controller.metrics().statusWrites(ClusterWriter.Result.WRITTEN) - writesBefore;
        long rewrites = decisions.waitingRewrites() - rewritesBefore;
        long same = decisions.waitingSameDecisionRewrites() - sameBefore;
        System.out.printf(
            "aging: %d waiting jobs, %d ticks of +1 min: %.0f status writes (%d PUTs) = %.4f per waiting job per tick;"
                + " writes to waiting jobs: %d, of which with an unchanged decision: %d%n",
            waiting,
            ticks,
            agingWrites,
            requests.count("PUT batchjobs/status") - putsBefore,
            agingWrites / Math.max(1, waiting * ticks),
            rewrites,
            same);

        System.out.printf(
            "409 conflicts: %.0f status writes answered 409 (%d responses 409 in all)%n",
            controller.metrics().statusWrites(ClusterWriter.Result.CONFLICT), requests.code(409));
        System.out.printf(
            "heap (whole JVM: server + controller + benchmark clients): peak used %s, max after GC %s%n",
            HeapWatch.mib(heap.peakUsedBytes()), HeapWatch.mib(heap.maxAfterGcBytes()));
        controller.close();
        decisions.close();

        // (f) The ceiling again, on the same server now holding the drained jobs and warmed by
        // the run, with the controller and the benchmark's watch closed as they were in (a). Why:
        // (a) measures a server a few seconds old with 1,000 jobs, and it moved 677 to 1,197
        // writes/s between runs; the drain is measured on the same server later. Both are printed.
        client
            .namespaces()
            .resource(
                new NamespaceBuilder()
                    .withNewMetadata()
                    .withName("wmax-after")
                    .endMetadata()
                    .build())
            .create();
        WriteCeiling.Result after =
            WriteCeiling.measure(
                ceilingClient,
                w,
                "wmax-after",
                a.integer("wmax-jobs"),
                WRITERS,
                Duration.ofSeconds(8),
                Duration.ofSeconds(a.integer("wmax-seconds")));
        System.out.printf(
            "W_max after the run, same server (%d writes in %.1f s, %d failed; this JVM's processor"
                + " time per write %s): %.0f status writes/s; the drain's decisions/s over it:"
                + " %.2f overall, %.2f between 10%% and 90%%%n",
            after.writes(),
            after.measured().toMillis() / 1000.0,
            after.failures(),
            after.processorPerWrite(),
            after.writesPerSecond(),
            rate / after.writesPerSecond(),
            steady / after.writesPerSecond());
      }
    } finally {
      StandaloneChild.deleteTree(state);
    }
  }

  private static void createNodes(KubernetesClient client, Workload w) {
    long t = System.nanoTime();
    Instant beat = Instant.now();
    Parallel.forEach(
        w.nodes,
        WRITERS,
        i -> {
          BatchNode n = client.resources(BatchNode.class).resource(w.node(i)).create();
          n.setStatus(w.nodeStatus(i, beat));
          client.resources(BatchNode.class).resource(n).updateStatus();
        });
    System.out.printf("nodes: %d created and reported in %.1f s%n", w.nodes, secondsSince(t));
  }

  private static Percentiles latencies(Map<String, Long> created, DecisionWatch decisions) {
    double[] ms =
        created.entrySet().stream()
            .mapToDouble(
                e -> {
                  Long d = decisions.firstDecidedNanos(e.getKey());
                  return d == null ? Double.NaN : Math.max(0, (d - e.getValue()) / 1e6);
                })
            .filter(x -> !Double.isNaN(x))
            .toArray();
    return new Percentiles(ms);
  }

  /** Waits until no job status has changed for {@code quiet}, at most {@code max}. */
  private static void waitQuiet(DecisionWatch d, Duration quiet, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (d.nanosSinceLastChange() < quiet.toNanos() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
  }

  private static double secondsSince(long t) {
    return (System.nanoTime() - t) / 1e9;
  }

  /**
   * W_max on jobs a user watches (a fabric8 watch over HTTPS, as the benchmark's own), counting the
   * events it sees into {@code events}.
   */
  private static WriteCeiling.Result watchedCeiling(
      KubernetesClient user, KubernetesClient writers, Workload w, Args a, AtomicLong events)
      throws InterruptedException {
    String namespace = "wmax-watched";
    user.namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    try (Watch watch =
        user.resources(BatchJob.class)
            .inNamespace(namespace)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, BatchJob job) {
                    events.incrementAndGet();
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      return WriteCeiling.measure(
          writers,
          w,
          namespace,
          a.integer("wmax-jobs"),
          WRITERS,
          Duration.ofSeconds(8),
          Duration.ofSeconds(a.integer("wmax-seconds")));
    }
  }
}
