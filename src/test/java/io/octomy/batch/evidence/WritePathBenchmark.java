package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The embedded API server's write path in standalone mode ({@code octomy-batch standalone} in a
 * child JVM with default JVM flags, its controller and agent running): creates/s from C clients,
 * each on its own kept-alive HTTPS connection, as the store fills from 1,000 to 21,000 BatchJobs
 * (in windows of 2,000), beside dry-run creates/s on the same connections (the same request
 * handling without the commit); then the resident memory with the 20,000-odd jobs decided, and a
 * restart on that state: how long until it serves, a list of every job in pages ({@code
 * --page-limit}), and a kill -9 of its server JVM while clients create ({@link AtSizeChecks}).
 * First the server warms up for {@code --warmup-s} on creates in another namespace, deleted before
 * the fill, so that the fill measures a compiled create path. The clients are the JDK's ({@code
 * --client jdk}) or ApacheBench's ({@code --client ab}); whether the fill's jobs are decided is
 * read once it is over, or, with {@code --watch-fill true}, by a watch open through the fill, as a
 * user's {@code kubectl get -w} would be (it costs both the server and this JVM a share of the same
 * processors). See docs/benchmarks.md.
 */
public final class WritePathBenchmark {

  private static final String NS = "default";

  /** Warm-up jobs made before they are deleted and the next round starts. */
  private static final int WARM_ROUND = 5000;

  private WritePathBenchmark() {}

  public static void main(String[] argv) throws Exception {
    Args a =
        new Args(
            argv,
            Map.ofEntries(
                Map.entry("clients", "16,4"),
                Map.entry("from", "1000"),
                Map.entry("to", "21000"),
                Map.entry("window", "2000"),
                Map.entry("dry-run-s", "4"),
                Map.entry("warmup-s", "45"),
                Map.entry("jvm", ""),
                Map.entry("keep-state", ""),
                Map.entry("client", "jdk"),
                Map.entry("watch-fill", "false"),
                Map.entry("page-limit", "500"),
                Map.entry("kill-after-s", "3")));
    System.out.println("write path benchmark " + a);
    List<String> jvm = StandaloneChild.jvmOptions(a.string("jvm"));
    // each figure printed as it is measured too: a run that fails late keeps what it measured
    Map<String, String> figures =
        new LinkedHashMap<>() {
          @Override
          public String put(String key, String value) {
            System.out.println("# " + key + " " + value);
            return super.put(key, value);
          }
        };
    boolean first = true;
    for (String c : a.string("clients").split(",")) {
      int clients = Integer.parseInt(c.trim());
      // --keep-state DIR: the first run's state is left in DIR, for restarts measured on their own
      boolean keep = first && !a.string("keep-state").isBlank();
      Path state =
          keep
              ? Files.createDirectories(Path.of(a.string("keep-state")))
              : Files.createTempDirectory("octomy-writes");
      try {
        run(a, jvm, clients, state, first, figures);
      } finally {
        if (!keep) {
          StandaloneChild.deleteTree(state);
        }
      }
      first = false;
    }
    figures.forEach((k, v) -> System.out.println(k + " " + v));
    System.exit(0);
  }

  private static void run(
      Args a, List<String> jvm, int clients, Path state, boolean restart, Map<String, String> out)
      throws Exception {
    String tag = "_c" + clients;
    ChildJvm standalone = StandaloneChild.start(jvm, state, "first", QueueBenchmark.CPU + "=64000");
    try {
      Config config = StandaloneChild.config(standalone);
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        JobTimes fillWatch =
            Boolean.parseBoolean(a.string("watch-fill")) ? new JobTimes(client, NS) : null;
        StandaloneChild.awaitNodeReady(client);
        client
            .namespaces()
            .resource(
                new NamespaceBuilder().withNewMetadata().withName("warm").endMetadata().build())
            .create();
        CreateClients warm = clients(a, config, "warm", clients);
        CreateClients raw = clients(a, config, NS, clients);
        System.out.println("# clients: " + raw.describe());
        String body = jobBody(NS);

        // The JIT warms up on creates in another namespace, in rounds of at most WARM_ROUND jobs,
        // each deleted before the next (the server's heap is sized for the state it started on:
        // tens of thousands of jobs more would not fit), and the fill starts once all are gone, so
        // that its first windows do not carry their removal. A create whose body names another
        // namespace than its URL is refused, and a warm-up of refusals would leave the create path
        // cold: every warm-up create must be made.
        String warmBody = jobBody("warm");
        long warmUntil = System.nanoTime() + Duration.ofSeconds(a.integer("warmup-s")).toNanos();
        long warmCreates = 0;
        long warmStart = System.nanoTime();
        while (System.nanoTime() < warmUntil) {
          long remaining = warmUntil - System.nanoTime();
          warmCreates +=
              requireAllMade(
                  warm.run(warmBody, "", WARM_ROUND, Duration.ofNanos(remaining)), "warm-up");
          // Deleted until none is left: a create ab sent just before its time ran out can be
          // committed after the delete of the collection, so one not being deleted is deleted.
          client.resources(BatchJob.class).inNamespace("warm").delete();
          List<BatchJob> left;
          while (!(left = client.resources(BatchJob.class).inNamespace("warm").list().getItems())
              .isEmpty()) {
            if (left.stream().anyMatch(j -> j.getMetadata().getDeletionTimestamp() == null)) {
              client.resources(BatchJob.class).inNamespace("warm").delete();
            }
            Thread.sleep(100);
          }
        }
        requireAllMade(
            warm.run(warmBody, "dryRun=All", Integer.MAX_VALUE, Duration.ofSeconds(3)),
            "warm-up dry run");
        out.put(
            "warmup_creates" + tag,
            String.format(
                "%d in %.1f s (deleted in rounds of up to %d)",
                warmCreates, (System.nanoTime() - warmStart) / 1e9, WARM_ROUND));

        int from = a.integer("from");
        raw.run(body, "", from, UNBOUNDED);
        Duration dry = Duration.ofSeconds(a.integer("dry-run-s"));
        RawCreates.Round dryLow = raw.run(body, "dryRun=All", Integer.MAX_VALUE, dry);
        List<String> windows = new ArrayList<>();
        double firstRate = 0;
        double lastRate = 0;
        int window = a.integer("window");
        long fillStart = System.nanoTime();
        double cpuAtFill = ProcStatus.cpuSeconds(standalone.pid());
        long filled = 0;
        List<String> windowCpu = new ArrayList<>();
        WindowProcessorCost lastCpu = null;
        for (int at = from; at < a.integer("to"); at += window) {
          ProcessorReading before = ProcessorReading.now(standalone.pid(), raw);
          RawCreates.Round r = raw.run(body, "", window, UNBOUNDED);
          WindowProcessorCost cpu =
              ProcessorReading.now(standalone.pid(), raw).since(before, r.created());
          filled += r.created();
          windows.add(String.format("%d-%d:%.0f", at, at + r.created(), r.perSecond()));
          windowCpu.add(String.format("%d:%s", at, cpu));
          System.out.printf(
              "# %d clients, objects %d to %d: %.0f creates/s (%d failed); processor ms per"
                  + " create: %s%n",
              clients, at, at + r.created(), r.perSecond(), r.failed(), cpu.described());
          if (at == from) {
            firstRate = r.perSecond();
          }
          lastRate = r.perSecond();
          lastCpu = cpu;
        }
        double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
        double cpuBeforeDry = ProcStatus.cpuSeconds(standalone.pid());
        RawCreates.Round dryHigh = raw.run(body, "dryRun=All", Integer.MAX_VALUE, dry);
        double cpuDry = ProcStatus.cpuSeconds(standalone.pid()) - cpuBeforeDry;
        long total = client.resources(BatchJob.class).inNamespace(NS).list().getItems().size();
        long caughtUp = System.nanoTime();
        try (JobTimes times = fillWatch != null ? fillWatch : new JobTimes(client, NS)) {
          while (times.decidedTotal() < total) {
            Thread.sleep(20);
          }
        }
        // the server's processor time for each create of the fill, until every one is decided: the
        // request, its commit, its watch events, and the controller's pass and status write (the
        // dry-run round between is left out); less sensitive to other load than creates/s
        double cpuFill = ProcStatus.cpuSeconds(standalone.pid()) - cpuAtFill - cpuDry;
        out.put("server_cpu_ms_per_create" + tag, String.format("%.2f", cpuFill * 1000 / filled));
        out.put(
            "server_cpu_ms_per_dry_run_create" + tag,
            String.format("%.2f", cpuDry * 1000 / Math.max(1, dryHigh.created())));
        out.put("creates_per_s_first_window" + tag, String.format("%.0f", firstRate));
        out.put("creates_per_s_last_window" + tag, String.format("%.0f", lastRate));
        out.put("first_over_last_window" + tag, String.format("%.2f", firstRate / lastRate));
        out.put("windows" + tag, String.join(",", windows));
        // server/its compiler/its admission loop/the benchmark's JVM, ms of processor time per
        // create in each window
        out.put("window_cpu_ms_per_create" + tag, String.join(",", windowCpu));
        out.put("last_window_server_cpu_ms_per_create" + tag, lastCpu.server());
        out.put("last_window_compiler_cpu_ms_per_create" + tag, lastCpu.compiler());
        out.put("last_window_admission_loop_cpu_ms_per_create" + tag, lastCpu.loop());
        out.put("last_window_benchmark_cpu_ms_per_create" + tag, lastCpu.benchmark());
        out.put("last_window_creates_per_s_if_cores_were_all_busy" + tag, lastCpu.ceiling());
        out.put("dry_run_creates_per_s_low" + tag, String.format("%.0f", dryLow.perSecond()));
        out.put("dry_run_creates_per_s_high" + tag, String.format("%.0f", dryHigh.perSecond()));
        out.put(
            "fill_creates_per_s" + tag,
            String.format("%.0f", (a.integer("to") - from) / fillSeconds));
        out.put(
            "all_decided_after_fill_s" + tag,
            String.format("%.2f", (System.nanoTime() - caughtUp) / 1e9));
        out.put("jobs" + tag, Long.toString(total));
        Thread.sleep(5000); // a few quiet passes and reports
        out.put("rss_mib" + tag, Long.toString(ProcStatus.kib(standalone.pid(), "VmRSS") / 1024));
        out.put(
            "peak_rss_mib" + tag, Long.toString(ProcStatus.kib(standalone.pid(), "VmHWM") / 1024));
        Thread.sleep(20_000); // idle: what the process keeps once the burst is over
        out.put(
            "idle_rss_mib" + tag, Long.toString(ProcStatus.kib(standalone.pid(), "VmRSS") / 1024));
        if (!restart) {
          return;
        }
        long t = System.nanoTime();
        standalone.stop();
        out.put("stop_s", String.format("%.2f", (System.nanoTime() - t) / 1e9));
      }
      long t0 = System.nanoTime();
      standalone = StandaloneChild.start(jvm, state, "second", QueueBenchmark.CPU + "=64000");
      Config again = StandaloneChild.config(standalone);
      out.put("restart_serving_s", String.format("%.2f", (System.nanoTime() - t0) / 1e9));
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(again).build();
          JobTimes times = new JobTimes(client, NS)) {
        int listed = client.resources(BatchJob.class).inNamespace(NS).list().getItems().size();
        out.put("restart_listed", Integer.toString(listed));
        out.put("restart_listed_s", String.format("%.2f", (System.nanoTime() - t0) / 1e9));
        client
            .resources(BatchJob.class)
            .inNamespace(NS)
            .resource(QueueBenchmark.waitingJob("probe"))
            .create();
        while (times.decided("probe") == null) {
          Thread.sleep(5);
        }
        out.put("restart_deciding_s", String.format("%.2f", (System.nanoTime() - t0) / 1e9));
        Thread.sleep(5000);
        out.put("restart_rss_mib", Long.toString(ProcStatus.kib(standalone.pid(), "VmRSS") / 1024));
        AtSizeChecks.pagedList(
            state.resolve("state").resolve("kubeconfig"), a.integer("page-limit"), out);
        standalone =
            AtSizeChecks.killNineWhileCreating(
                standalone,
                again,
                () -> StandaloneChild.start(jvm, state, "third", QueueBenchmark.CPU + "=64000"),
                a.integer("kill-after-s"),
                out);
      }
    } finally {
      standalone.close();
    }
  }

  /** A round with no time limit: it ends when its creates are answered. */
  private static final Duration UNBOUNDED = Duration.ofDays(1);

  /** {@code --client jdk} (the default) or {@code --client ab}. */
  private static CreateClients clients(Args a, Config config, String namespace, int count)
      throws Exception {
    return switch (a.string("client")) {
      case "jdk" -> new RawCreates(config, namespace, count);
      case "ab" -> new ApacheBenchCreates(config, namespace, count);
      default ->
          throw new IllegalArgumentException(
              "--client "
                  + a.string("client")
                  + ": write jdk (the JDK's client) or ab (ApacheBench)");
    };
  }

  /**
   * Processor time so far, in seconds: the server (launcher and server JVM), its just-in-time
   * compiler threads' part, its admission loop's part, and the benchmark's (its JVM: the JDK
   * clients, TLS and watch; with {@code ab}, its processes too).
   */
  private record ProcessorReading(double server, double compiler, double loop, double benchmark) {
    static ProcessorReading now(long serverPid, CreateClients clients) throws IOException {
      return new ProcessorReading(
          ProcStatus.cpuSeconds(serverPid),
          ProcStatus.compilerCpuSeconds(serverPid),
          ProcStatus.admissionLoopCpuSeconds(serverPid),
          clients.processorSeconds());
    }

    WindowProcessorCost since(ProcessorReading start, long creates) {
      double per = 1000.0 / Math.max(1, creates);
      return new WindowProcessorCost(
          (server - start.server) * per,
          (compiler - start.compiler) * per,
          (loop - start.loop) * per,
          (benchmark - start.benchmark) * per);
    }
  }

  /**
   * Milliseconds of processor time per create in one window. Why: on two processors shared by the
   * server and its clients, creates/s is bounded by the processors over the sum of both; the
   * compiler's part shows how much of the server's is warming up rather than serving, the admission
   * loop's how much goes to passes over the jobs already stored.
   */
  private record WindowProcessorCost(
      double serverMs, double compilerMs, double loopMs, double benchmarkMs) {
    String server() {
      return String.format("%.2f", serverMs);
    }

    String compiler() {
      return String.format("%.2f", compilerMs);
    }

    String loop() {
      return String.format("%.2f", loopMs);
    }

    String benchmark() {
      return String.format("%.2f", benchmarkMs);
    }

    /** Creates/s were every processor busy with the server and the benchmark at these costs. */
    String ceiling() {
      int cores = Runtime.getRuntime().availableProcessors();
      return String.format("%.0f", cores * 1000.0 / (serverMs + benchmarkMs));
    }

    String described() {
      return String.format(
          "server %s (compiler %s, admission loop %s), benchmark %s",
          server(), compiler(), loop(), benchmark());
    }

    @Override
    public String toString() {
      return server() + "/" + compiler() + "/" + loop() + "/" + benchmark();
    }
  }

  /** A round with refused creates measures refusals, not the write path. */
  private static long requireAllMade(RawCreates.Round round, String what) {
    if (round.failed() > 0 || round.created() == 0) {
      throw new IllegalStateException(
          what + ": " + round.failed() + " creates refused, " + round.created() + " made");
    }
    System.out.printf(
        "# %s: %d creates in %.1f s (%.0f/s)%n",
        what, round.created(), round.seconds(), round.perSecond());
    return round.created();
  }

  /** A job no node can hold, with generateName so each POST makes a new one. */
  private static String jobBody(String namespace) {
    BatchJob j = QueueBenchmark.waitingJob("unused");
    j.getMetadata().setName(null);
    j.getMetadata().setNamespace(namespace);
    j.getMetadata().setGenerateName("w-");
    j.setApiVersion("batch.octomy.io/v1alpha1");
    j.setKind("BatchJob");
    return Serialization.asJson(j);
  }
}
