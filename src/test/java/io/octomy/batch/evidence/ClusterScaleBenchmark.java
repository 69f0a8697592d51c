package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Executor;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.realcluster.RealCluster;
import io.octomy.batch.vocabulary.Finalizers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The controller at cluster scale on the real kube-apiserver + etcd of test-cluster/: N BatchNodes
 * and M BatchJobs created first, then the controller started in a JVM of its own ({@link
 * ControllerProcessMain}) so that its resident memory is its own. It prints W_max (as {@link
 * EndToEndBenchmark} measures it), the drain of the backlog against it, the controller's resident
 * memory and live heap (after a full collection) with everything in its caches and the largest
 * classes of that heap, and, after a kill -9 and jobs created while it was down, the time from the
 * new process's start to its first decision of them. See docs/benchmarks.md.
 */
public final class ClusterScaleBenchmark {

  private static final int WRITERS = AdmissionLoop.Settings.defaults().writeThreads();

  private ClusterScaleBenchmark() {}

  public static void main(String[] argv) throws Exception {
    Args a =
        new Args(
            argv,
            Map.ofEntries(
                Map.entry("nodes", "10000"),
                Map.entry("jobs", "100000"),
                Map.entry("late-jobs", "100"),
                Map.entry("seed", "42"),
                // The chart's -XX:MaxRAMPercentage=75 under a 1.5 GiB memory limit.
                Map.entry("controller-heap", "1152m"),
                Map.entry("create-threads", "16"),
                Map.entry("drain-timeout-s", "1200"),
                Map.entry("dir", "target/cluster-scale")));
    System.out.println("cluster scale benchmark " + a);
    Path dir = Path.of(a.string("dir")).toAbsolutePath();
    Files.createDirectories(dir);
    int nodes = a.integer("nodes");
    int jobs = a.integer("jobs");
    int late = a.integer("late-jobs");
    Workload w =
        new Workload(nodes, jobs, Executor.Process, a.integer("seed"), Duration.ofHours(1));
    try (RealCluster cluster = RealCluster.startAt(dir.resolve("real"));
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(cluster.adminConfig()).build()) {
      cluster.requireCrds();
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
      WriteCeiling.Result wmax =
          WriteCeiling.measure(
              client, w, "wmax", 1000, WRITERS, Duration.ofSeconds(8), Duration.ofSeconds(10));
      System.out.printf("W_max: %.0f status writes/s%n", wmax.writesPerSecond());

      long t = System.nanoTime();
      Instant beat = Instant.now();
      int threads = a.integer("create-threads");
      Parallel.forEach(
          nodes,
          threads,
          i -> {
            BatchNode n = client.resources(BatchNode.class).resource(w.node(i)).create();
            n.setStatus(w.nodeStatus(i, beat));
            client.resources(BatchNode.class).resource(n).updateStatus();
          });
      System.out.printf("nodes: %d created and reported in %.1f s%n", nodes, secondsSince(t));

      DecisionWatch decisions = new DecisionWatch(client);
      t = System.nanoTime();
      createJobs(client, w, 0, jobs, threads);
      double created = secondsSince(t);
      System.out.printf(
          "jobs: %d created in %.1f s (%.0f creates/s)%n", jobs, created, jobs / created);

      // The controller on the backlog, in a JVM of its own.
      String[] ctlArgs = {
        cluster.kubeconfig().toString(), "" + nodes, "" + (jobs + late), a.string("seed"), "Process"
      };
      List<String> jvm = List.of("-Xmx" + a.string("controller-heap"));
      long start = System.nanoTime();
      long rssPeakKib;
      try (ChildJvm ctl =
          ChildJvm.startWith(
              dir.resolve("controller-1.log"),
              jvm,
              ControllerProcessMain.class.getName(),
              ctlArgs)) {
        ctl.awaitLine("ACTIVE", Duration.ofMinutes(10));
        long active = System.nanoTime();
        int decidedAtActive = decisions.decided();
        System.out.printf(
            "controller active (informers synced) %.1f s after start%n", secondsSince(start));
        long deadline = start + Duration.ofSeconds(a.integer("drain-timeout-s")).toNanos();
        long t10 = 0;
        long t90 = 0;
        while (decisions.decided() < jobs && System.nanoTime() < deadline && ctl.alive()) {
          Thread.sleep(100);
          if (t10 == 0 && decisions.decided() >= jobs / 10) {
            t10 = System.nanoTime();
          }
          if (t90 == 0 && decisions.decided() >= jobs * 9 / 10) {
            t90 = System.nanoTime();
          }
        }
        double drain = secondsSince(start);
        int decided = decisions.decided();
        double rate = decided / drain;
        double fromActive = (decided - decidedAtActive) / secondsSince(active);
        double steady = t90 > t10 && t10 > 0 ? (jobs * 0.8) / ((t90 - t10) / 1e9) : Double.NaN;
        System.out.printf(
            "drain: %d of %d decided in %.1f s from controller start%s; admitted %d%n",
            decided, jobs, drain, decided < jobs ? " (NOT ALL)" : "", decisions.admitted());
        System.out.printf(
            "decisions/s: %.0f overall = %.2f x W_max; %.0f between 10%% and 90%% = %.2f x W_max%n",
            rate, rate / wmax.writesPerSecond(), steady, steady / wmax.writesPerSecond());
        System.out.printf(
            "  from active: %.0f decisions/s = %.2f x W_max%n",
            fromActive, fromActive / wmax.writesPerSecond());
        Thread.sleep(10_000);
        memory("with everything cached", ctl.pid(), dir.resolve("histogram-1.txt"));
        rssPeakKib = ProcStatus.kib(ctl.pid(), "VmHWM");
        System.out.printf("controller peak resident: %.0f MiB%n", rssPeakKib / 1024.0);
        ctl.kill9();
        // The ceiling again on the server now holding the backlog (the first one met a cold one).
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
                client,
                w,
                "wmax-after",
                1000,
                WRITERS,
                Duration.ofSeconds(8),
                Duration.ofSeconds(10));
        System.out.printf(
            "W_max after the drain: %.0f status writes/s; the drain over it: %.2f overall,"
                + " %.2f between 10%% and 90%%%n",
            after.writesPerSecond(),
            rate / after.writesPerSecond(),
            steady / after.writesPerSecond());
      }

      // Jobs that arrive while no controller runs; the restarted one must decide them.
      List<String> lateKeys = createJobs(client, w, jobs, late, threads);
      long restart = System.nanoTime();
      try (ChildJvm ctl =
          ChildJvm.startWith(
              dir.resolve("controller-2.log"),
              jvm,
              ControllerProcessMain.class.getName(),
              ctlArgs)) {
        ctl.awaitLine("ACTIVE", Duration.ofMinutes(10));
        double active = secondsSince(restart);
        long first = 0;
        long deadline = restart + Duration.ofMinutes(5).toNanos();
        while (first == 0 && System.nanoTime() < deadline && ctl.alive()) {
          for (String k : lateKeys) {
            Long d = decisions.firstDecidedNanos(k);
            if (d != null && (first == 0 || d < first)) {
              first = d;
            }
          }
          Thread.sleep(20);
        }
        System.out.printf(
            "restart after kill -9: active %.1f s after start; first decision of the %d jobs"
                + " created while it was down %s after start%n",
            active,
            late,
            first == 0 ? "NONE within 5 min" : String.format("%.1f s", (first - restart) / 1e9));
        while (lateKeys.stream().anyMatch(k -> decisions.firstDecidedNanos(k) == null)
            && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        Thread.sleep(10_000);
        memory("after the restart", ctl.pid(), dir.resolve("histogram-2.txt"));
      }
      decisions.close();
    }
    System.exit(0);
  }

  private static List<String> createJobs(
      KubernetesClient client, Workload w, int from, int count, int threads) {
    List<String> keys = new ArrayList<>(count);
    for (int i = from; i < from + count; i++) {
      keys.add(DecisionWatch.key(w.job(i)));
    }
    // As the chart's webhook stores them: with the controller's finalizer on.
    Parallel.forEach(
        count,
        threads,
        k -> {
          BatchJob j = w.job(from + k);
          j.getMetadata().setFinalizers(List.of(Finalizers.RESERVATION));
          client
              .resources(BatchJob.class)
              .inNamespace(j.getMetadata().getNamespace())
              .resource(j)
              .create();
        });
    return keys;
  }

  /**
   * Resident memory now and the live heap: {@code GC.class_histogram} collects first, so its total
   * is what survives a full collection. Its largest lines go to {@code histogram}.
   */
  private static void memory(String when, long pid, Path histogram)
      throws IOException, InterruptedException {
    long rss = ProcStatus.kib(pid, "VmRSS");
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    Files.writeString(histogram, out);
    String total =
        out.lines().filter(l -> l.startsWith("Total")).findFirst().orElse("Total ? ?").trim();
    String[] f = total.split("\\s+");
    double liveMib = f.length > 2 ? Long.parseLong(f[2]) / 1048576.0 : Double.NaN;
    System.out.printf(
        "controller %s: resident %.0f MiB (then %.0f MiB after the collection), live heap %.0f MiB;"
            + " largest classes in %s:%n",
        when, rss / 1024.0, ProcStatus.kib(pid, "VmRSS") / 1024.0, liveMib, histogram);
    out.lines().skip(3).limit(12).forEach(l -> System.out.println("  " + l.trim()));
  }

  private static double secondsSince(long t) {
    return (System.nanoTime() - t) / 1e9;
  }
}
