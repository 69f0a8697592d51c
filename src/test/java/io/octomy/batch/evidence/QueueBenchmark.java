package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.fixtures.ApiFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Standalone mode as a user runs it ({@code octomy-batch standalone} in a child JVM with default
 * JVM flags, clients over HTTPS on 127.0.0.1), measured in the shapes of the Slurm peer script so
 * the two can run back to back on the same machine:
 *
 * <ol>
 *   <li>quiet system: one job at a time, create acknowledged → first decided status seen by a
 *       watch, beside the server's own create round trip and watch delivery;
 *   <li>keep pace: N distinct jobs no node can hold, created by C concurrent clients; the time
 *       until every one has a decided status against the time it took to create them;
 *   <li>quiet window: status writes to those waiting jobs while nothing changes;
 *   <li>drain: M tiny {@code true} jobs (100 cpu-milli, 1 MiB) on a 64,000 cpu-milli node while the
 *       N still wait, first create → all Succeeded; then the same on an empty queue;
 *   <li>burst: B jobs created at once by the C clients, create acknowledged → decided;
 *   <li>keep pace with prepared requests: step 2 again, each job's body written beforehand and
 *       POSTed over one of C kept-alive HTTPS connections ({@link RawCreates}, as {@code ab -k}
 *       does), so that the clients' own work per job (building, serializing, parsing the answer on
 *       the same two cores) does not set the pace the server is measured at.
 * </ol>
 *
 * With {@code --peer FILE} (the {@code name value} lines the Slurm script printed, run just before
 * or after) it prints the ratios to Slurm's figures. See docs/benchmarks.md.
 */
public final class QueueBenchmark {

  static final String NS = "default";
  static final String CPU = "octomy.io/cpu-milli";
  static final String MEM = "octomy.io/memory-bytes";

  /** The resource no node offers (Slurm's unobtainium license). */
  static final String NOBODY = "example.com/unobtainium";

  private final Args a;
  private final KubernetesClient[] clients;
  private final RawCreates prepared;
  private final JobTimes times;
  private final NodeReportTimes reports;
  private final Map<String, String> figures = new LinkedHashMap<>();

  /**
   * The standalone process: its processor time per step is printed beside the step's figures, as it
   * moves far less with the host's other load than the step's duration.
   */
  private final long serverPid;

  private QueueBenchmark(
      Args a,
      KubernetesClient[] clients,
      RawCreates prepared,
      JobTimes times,
      NodeReportTimes reports,
      long serverPid) {
    this.a = a;
    this.clients = clients;
    this.prepared = prepared;
    this.times = times;
    this.reports = reports;
    this.serverPid = serverPid;
  }

  public static void main(String[] argv) throws Exception {
    Args a =
        new Args(
            argv,
            Map.of(
                "waiting", "2000",
                "tiny", "300",
                "clients", "16",
                "quiet-samples", "200",
                "burst", "1000",
                "quiet-window-s", "10",
                "warmup", "1",
                "peer", "",
                "jvm", "",
                "server-log", ""));
    System.out.println("queue benchmark " + a);
    Path state = Files.createTempDirectory("octomy-queue");
    try (ChildJvm standalone =
        StandaloneChild.start(
            StandaloneChild.jvmOptions(a.string("jvm")),
            state,
            "standalone",
            CPU + "=64000",
            MEM + "=" + (64L << 30))) {
      Config config = StandaloneChild.config(standalone);
      int c = a.integer("clients");
      KubernetesClient[] clients = new KubernetesClient[c];
      for (int i = 0; i < c; i++) {
        clients[i] = new KubernetesClientBuilder().withConfig(config).build();
      }
      try (KubernetesClient watcher = new KubernetesClientBuilder().withConfig(config).build();
          JobTimes times = new JobTimes(watcher, NS);
          NodeReportTimes reports = new NodeReportTimes(watcher, StandaloneChild.NODE)) {
        StandaloneChild.awaitNodeReady(watcher);
        RawCreates prepared = new RawCreates(config, NS, c);
        new QueueBenchmark(a, clients, prepared, times, reports, standalone.pid()).run();
      } finally {
        for (KubernetesClient k : clients) {
          k.close();
        }
      }
    }
    if (!a.string("server-log").isBlank()) {
      Files.copy(
          state.resolve("standalone.log"),
          Path.of(a.string("server-log")),
          StandardCopyOption.REPLACE_EXISTING);
    }
    StandaloneChild.deleteTree(state);
    System.exit(0);
  }

  private void run() throws Exception {
    for (int round = 0; round < a.integer("warmup"); round++) {
      // The JIT of both JVMs warms up on a smaller round of the same shapes; not counted.
      String w = "warm-" + round + "-";
      List<String> waiting = createAll(300, i -> waitingJob(w + "wait-" + i));
      List<String> tiny = createAll(100, i -> tinyJob(w + "tiny-" + i));
      awaitCount(() -> times.decidedCount(waiting), 300, "warm-up decisions");
      awaitCount(() -> times.finishedCount(tiny), 100, "warm-up runs");
      deleteAll(waiting);
      deleteAll(tiny);
      quietLatency(20, w + "quiet-");
    }

    // 1. A quiet system, one job at a time.
    quietLatency(a.integer("quiet-samples"), "quiet-");

    // 2. Keep pace: N distinct never-fitting jobs from C clients.
    int n = a.integer("waiting");
    CpuMark cpu0 = cpuMark();
    long t0 = System.nanoTime();
    Map<String, Long> acked = new ConcurrentHashMap<>();
    List<String> waiting = createAll(n, i -> waitingJob(String.format("wait-job-%05d", i)), acked);
    long created = System.nanoTime();
    awaitCount(() -> times.decidedCount(waiting), n, "decisions on the waiting jobs");
    keptPace("loop", waiting, acked, t0, created, cpu0);

    // 3. Nothing changes: status writes to the waiting jobs.
    long before = times.waitingRewrites();
    int window = a.integer("quiet-window-s");
    Thread.sleep(window * 1000L);
    figure("status_rewrites_in_" + window + "s", "%d", times.waitingRewrites() - before);

    // 4. The drain behind the waiting jobs, then on an empty queue.
    int m = a.integer("tiny");
    CpuMark cpu1 = cpuMark();
    figure("run_loop_drain_s", "%.2f", drain(m, "run-l-", "run_loop"));
    cpuPerJob("run_loop", cpu1, m);
    deleteAll(waiting);
    CpuMark cpu2 = cpuMark();
    figure("run_loop_emptyq_drain_s", "%.2f", drain(m, "run-el-", "run_loop_emptyq"));
    cpuPerJob("run_loop_emptyq", cpu2, m);

    // 5. A burst of creates while the controller runs.
    int b = a.integer("burst");
    Map<String, Long> burstAcked = new ConcurrentHashMap<>();
    CpuMark cpu3 = cpuMark();
    long tb = System.nanoTime();
    List<String> burst = createAll(b, i -> waitingJob(String.format("burst-%05d", i)), burstAcked);
    double burstCreate = (System.nanoTime() - tb) / 1e9;
    awaitCount(() -> times.decidedCount(burst), b, "decisions on the burst");
    figure("burst_create_s", "%.2f", burstCreate);
    figure("burst_all_decided_s", "%.2f", (latest(burst, times::decided) - tb) / 1e9);
    figure("burst_create_to_decision_ms", "%s", latencies(burst, burstAcked, times::decided));
    cpuPerJob("burst", cpu3, b);
    deleteAll(burst);

    // 6. Keep pace again, from prepared requests.
    keepPaceWithPreparedRequests(n);

    figures.forEach((k, v) -> System.out.println(k + " " + v));
    if (!a.string("peer").isBlank()) {
      PeerFigures.compare(Path.of(a.string("peer")), figures).forEach(System.out::println);
    }
  }

  /**
   * N distinct jobs no node can hold, their bodies serialized before the clock starts and POSTed by
   * the prepared clients: {@code loop_prepared_*}, the figures of step 2 under another prefix.
   */
  private void keepPaceWithPreparedRequests(int n) throws Exception {
    List<String> names = new ArrayList<>();
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      BatchJob job = waitingJob(String.format("prepared-job-%05d", i));
      job.setApiVersion("batch.octomy.io/v1alpha1");
      job.setKind("BatchJob");
      names.add(job.getMetadata().getName());
      bodies.add(Serialization.asJson(job));
    }
    long[] ackedAt = new long[n];
    CpuMark cpu = cpuMark();
    long t0 = System.nanoTime();
    RawCreates.Round round = prepared.postEach(bodies, ackedAt);
    long created = System.nanoTime();
    if (round.failed() > 0) {
      throw new IllegalStateException(round.failed() + " of the prepared creates failed");
    }
    awaitCount(() -> times.decidedCount(names), n, "decisions on the prepared creates");
    Map<String, Long> acked = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      acked.put(names.get(i), ackedAt[i]);
    }
    keptPace("loop_prepared", names, acked, t0, created, cpu);
    deleteAll(names);
  }

  /**
   * The figures of keeping pace with {@code names}, created from {@code t0} until {@code created}
   * and now all decided: create and decision times and rates, their ratio, each job's create
   * acknowledged → decided, and the server's processor time per job since {@code cpu}.
   */
  private void keptPace(
      String prefix,
      List<String> names,
      Map<String, Long> acked,
      long t0,
      long created,
      CpuMark cpu)
      throws IOException {
    int n = names.size();
    double createS = (created - t0) / 1e9;
    double decideS = (latest(names, times::decided) - t0) / 1e9;
    figure(prefix + "_create_s", "%.2f", createS);
    figure(prefix + "_creates_per_s", "%.0f", n / createS);
    figure(prefix + "_decided_s", "%.2f", decideS);
    figure(prefix + "_decisions_per_s", "%.0f", n / decideS);
    figure(prefix + "_decided_over_created", "%.3f", decideS / createS);
    figure(prefix + "_create_to_decision_ms", "%s", latencies(names, acked, times::decided));
    cpuPerJob(prefix, cpu, n);
  }

  /** The server's processor time so far, all of it and its compiler threads' part (seconds). */
  private record CpuMark(double all, double compiler) {}

  private CpuMark cpuMark() throws IOException {
    return new CpuMark(ProcStatus.cpuSeconds(serverPid), ProcStatus.compilerCpuSeconds(serverPid));
  }

  /**
   * The server's processor time since {@code since}, in milliseconds per job, and the part of it
   * its just-in-time compiler took (a JVM a minute old is still compiling the paths a step takes).
   */
  private void cpuPerJob(String step, CpuMark since, int jobs) throws IOException {
    CpuMark now = cpuMark();
    figure(step + "_server_cpu_ms_per_job", "%.2f", (now.all() - since.all()) * 1000 / jobs);
    figure(
        step + "_server_jit_cpu_ms_per_job",
        "%.2f",
        (now.compiler() - since.compiler()) * 1000 / jobs);
  }

  /** One job at a time, a short pause after each decision so the system is quiet again. */
  private void quietLatency(int samples, String prefix) throws Exception {
    List<Double> decision = new ArrayList<>();
    List<Double> roundTrip = new ArrayList<>();
    List<Double> watchDelivery = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      String name = prefix + String.format("%05d", i);
      BatchJob j = waitingJob(name);
      long sent = System.nanoTime();
      clients[0].resources(BatchJob.class).inNamespace(NS).resource(j).create();
      long ack = System.nanoTime();
      names.add(name);
      long deadline = ack + Duration.ofSeconds(30).toNanos();
      while (times.decided(name) == null && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      Long d = times.decided(name);
      if (d == null) {
        throw new IllegalStateException(name + " was not decided within 30 s");
      }
      decision.add((d - ack) / 1e6);
      roundTrip.add((ack - sent) / 1e6);
      watchDelivery.add((times.added(name) - sent) / 1e6);
      Thread.sleep(50);
    }
    if (!prefix.startsWith("warm")) {
      figure("quiet_create_to_decision_ms", "%s", summary(decision));
      figure("quiet_create_round_trip_ms", "%s", summary(roundTrip));
      figure("quiet_create_sent_to_added_seen_ms", "%s", summary(watchDelivery));
    }
    deleteAll(names);
  }

  /**
   * M tiny jobs from the C clients: seconds from the first create to the last Succeeded seen;
   * beside it (as {@code FIGURE_created_s}, {@code _admitted_s}, {@code _reported_s}, {@code
   * _reported_finished_s}) when the last create was acknowledged, the last admission seen, the last
   * job first seen in the node's report and the last seen finished there, so that a slow drain
   * shows which stage holds it; {@code _stages_ms} gives each job's time in each stage (create
   * acknowledged → admitted → in the node's report → finished in the report → finished status), and
   * {@code _node_reports} how many node status updates the drain took.
   */
  private double drain(int m, String prefix, String figure) throws Exception {
    long reportsBefore = reports.reports();
    Map<String, Long> acked = new ConcurrentHashMap<>();
    long t0 = System.nanoTime();
    List<String> tiny = createAll(m, i -> tinyJob(prefix + String.format("%05d", i)), acked);
    double created = (System.nanoTime() - t0) / 1e9;
    awaitCount(() -> times.finishedCount(tiny), m, "tiny jobs finished");
    double seconds = (latest(tiny, times::finished) - t0) / 1e9;
    figure(figure + "_created_s", "%.2f", created);
    figure(figure + "_admitted_s", "%.2f", (latest(tiny, times::decided) - t0) / 1e9);
    figure(figure + "_reported_s", "%.2f", (latest(tiny, reports::reported) - t0) / 1e9);
    figure(figure + "_reported_finished_s", "%.2f", (latest(tiny, reports::finished) - t0) / 1e9);
    figure(figure + "_node_reports", "%d", reports.reports() - reportsBefore);
    figure(
        figure + "_stages_ms",
        "ack>admitted %s; admitted>reported %s; reported>finished-in-report %s;"
            + " finished-in-report>finished %s",
        latencies(tiny, acked, times::decided),
        between(tiny, times::decided, reports::reported),
        between(tiny, reports::reported, reports::finished),
        between(tiny, reports::finished, times::finished));
    long succeeded = times.succeededCount(tiny);
    if (succeeded != m) {
      throw new IllegalStateException(
          (m - succeeded) + " of the tiny jobs " + prefix + "* did not succeed");
    }
    deleteAll(tiny);
    return seconds;
  }

  /** Per job, {@code to - from} in ms; a job missing either is left out (and counted out of n). */
  private static String between(
      List<String> names, Function<String, Long> from, Function<String, Long> to) {
    List<Double> ms = new ArrayList<>();
    for (String n : names) {
      Long a = from.apply(n);
      Long b = to.apply(n);
      if (a != null && b != null) {
        ms.add(Math.max(0, b - a) / 1e6);
      }
    }
    return ms.isEmpty() ? "none" : summary(ms);
  }

  private List<String> createAll(int n, IntFunction<BatchJob> job) {
    return createAll(n, job, new ConcurrentHashMap<>());
  }

  /** Creates n jobs from the C clients at once (client k creates jobs k, k+C, ...). */
  private List<String> createAll(int n, IntFunction<BatchJob> job, Map<String, Long> acked) {
    List<BatchJob> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      jobs.add(job.apply(i));
    }
    Parallel.forEach(
        n,
        clients.length,
        i -> {
          BatchJob j = jobs.get(i);
          clients[i % clients.length]
              .resources(BatchJob.class)
              .inNamespace(NS)
              .resource(j)
              .create();
          acked.put(j.getMetadata().getName(), System.nanoTime());
        });
    return jobs.stream().map(j -> j.getMetadata().getName()).toList();
  }

  private void deleteAll(List<String> names) throws InterruptedException {
    Parallel.forEach(
        names.size(),
        clients.length,
        i ->
            clients[i % clients.length]
                .resources(BatchJob.class)
                .inNamespace(NS)
                .withName(names.get(i))
                .delete());
    awaitCount(() -> times.deletedCount(names), names.size(), "deletions");
  }

  private static void awaitCount(LongSupplier count, long want, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (count.getAsLong() < want) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + ": " + count.getAsLong() + " of " + want);
      }
      Thread.sleep(5);
    }
  }

  private static long latest(List<String> names, Function<String, Long> at) {
    return names.stream().map(at).filter(t -> t != null).mapToLong(t -> t).max().orElseThrow();
  }

  private static String latencies(
      List<String> names, Map<String, Long> acked, Function<String, Long> at) {
    List<Double> ms = new ArrayList<>();
    for (String n : names) {
      ms.add(Math.max(0, at.apply(n) - acked.get(n)) / 1e6);
    }
    return summary(ms);
  }

  private static String summary(List<Double> ms) {
    Percentiles p = new Percentiles(ms.stream().mapToDouble(Double::doubleValue).toArray());
    return String.format("p50=%.1f,p99=%.1f,max=%.1f,n=%d", p.p(50), p.p(99), p.p(100), ms.size());
  }

  private void figure(String name, String format, Object... values) {
    figures.put(name, String.format(format, values));
    System.out.println("# " + name + " " + figures.get(name));
  }

  /** A job no node can ever hold: it also asks for a resource nobody offers. */
  static BatchJob waitingJob(String name) {
    return job(name, Map.of(CPU, 100L, MEM, 1L << 20, NOBODY, 1L));
  }

  /** 100 cpu-milli, 1 MiB, command {@code true}. */
  static BatchJob tinyJob(String name) {
    return job(name, Map.of(CPU, 100L, MEM, 1L << 20));
  }

  private static BatchJob job(String name, Map<String, Long> requests) {
    ApiFixtures.JobBuilder b = ApiFixtures.aJob(name).namespace(NS).command("true");
    requests.forEach(b::request);
    return b.build();
  }
}
