package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.JobPhase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Cluster mode end to end on the real server: two controller replicas (one active through the
 * Lease) and two Process agents, each its own process with a token the server minted for the
 * chart's ServiceAccount, under the chart's RBAC and admission policy. A ledger watches every job
 * for double admission and overcommitment throughout; at the end the audit log must hold no refused
 * request from either ServiceAccount.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterModeE2E {

  static final long CPU = 4000;
  static final Map<String, Long> CAPACITY =
      Map.of(
          "octomy.io/cpu-milli",
          CPU,
          "octomy.io/memory-bytes",
          8L << 30,
          "example.com/su2-processes",
          16L);

  /**
   * From SIGTERM to the standby holding the Lease once it is released: the stop (under 0.1 s here)
   * plus the standby's next retry, at most 15/7 s × 2.2 = 4.7 s apart with the elector's jitter.
   * Without the release it takes at least 12.9 s: 15 s after the last renewal, which came at most
   * one retry period (2.1 s) before SIGTERM.
   */
  static final Duration HAND_OVER_BOUND = Duration.ofSeconds(7);

  private static final String LEASE = ProductDeployment.LEASE;

  private static ProductDeployment product;
  private static KubernetesClient admin;
  private static final Map<String, ProductProcess> controllers = new HashMap<>();
  private static final List<ProductProcess> agents = new ArrayList<>();
  private static JobLedger ledger;
  private static Path policy;

  @BeforeAll
  static void deploy() throws Exception {
    product = ProductDeployment.get();
    admin = product.cluster().admin();
    policy = product.policyFile();
    ledger = new JobLedger(admin, CAPACITY);
    for (String node : List.of("node-a", "node-b")) {
      agents.add(startAgent(node));
    }
    for (String pod : List.of("octomy-batch-controller-0", "octomy-batch-controller-1")) {
      controllers.put(pod, startController(pod));
    }
    Eventually.within(60, () -> assertThat(controllers.keySet()).contains(leaseHolder()));
    Eventually.within(
        60,
        () -> {
          for (String n : List.of("node-a", "node-b")) {
            BatchNode bn = admin.resources(BatchNode.class).withName(n).get();
            assertThat(bn).isNotNull();
            assertThat(bn.getStatus()).isNotNull();
            assertThat(bn.getStatus().getCapacity()).containsAllEntriesOf(CAPACITY);
          }
        });
  }

  static ProductProcess startAgent(String node) throws Exception {
    return AgentReplica.agent(product, policy, node, CAPACITY);
  }

  static ProductProcess startController(String pod) throws Exception {
    return ControllerReplica.controller(product, policy, pod);
  }

  @AfterAll
  static void stop() throws Exception {
    for (ProductProcess p : controllers.values()) {
      p.close();
    }
    for (ProductProcess p : agents) {
      p.close();
    }
    if (ledger != null) {
      ledger.close();
    }
    // Their offers would stay in the pool until the heartbeat timeout: no other class gets them.
    if (admin != null) {
      for (String n : List.of("node-a", "node-b")) {
        admin.resources(BatchNode.class).withName(n).delete();
      }
    }
  }

  @Test
  @Order(1)
  void theExamplesRunToTheEnd() throws Exception {
    String ns = product.cluster().namespace("examples");
    List<String> files;
    try (Stream<Path> s = Files.list(Path.of("examples"))) {
      files =
          s.map(Path::toString)
              .filter(f -> f.contains("job-") || f.contains("pipeline"))
              .sorted()
              .toList();
    }
    for (String f : files) {
      KubectlRun.Result r = product.cluster().kubectl().run("apply", "-n", ns, "-f", f);
      assertThat(r.exitCode()).as(r.all()).isZero();
    }
    Map<String, BatchJob> done = awaitAll(ns, Duration.ofSeconds(120), j -> finished(j));
    assertThat(phases(done))
        .allSatisfy((name, phase) -> assertThat(phase).as(name).isEqualTo(JobPhase.Succeeded));
    assertThat(done)
        .containsKeys("preprocess-41", "solve-41-a", "solve-41-b", "analyze-41", "solve-ernie");
  }

  @Test
  @Order(2)
  void aFanOutNeverHoldsMoreThanTheNodesOffer() throws Exception {
    String ns = product.cluster().namespace("fan-out");
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      yaml.append(job("part-" + i, "requests: {octomy.io/cpu-milli: 1000}", "sleep 3"))
          .append("---\n");
    }
    apply(ns, yaml.toString());
    Map<String, BatchJob> done = awaitAll(ns, Duration.ofSeconds(120), ClusterModeE2E::finished);
    assertThat(done).hasSize(12);
    assertThat(phases(done).values()).containsOnly(JobPhase.Succeeded);
    assertThat(ledger.peaks().get("node-a octomy.io/cpu-milli")).isEqualTo(CPU);
    assertThat(ledger.peaks().get("node-b octomy.io/cpu-milli")).isEqualTo(CPU);
    assertThat(ledger.violations()).isEmpty();
  }

  @Test
  @Order(3)
  void aFailingAncestorSkipsItsDependantsAndALockIsWaitedFor() throws Exception {
    String ns = product.cluster().namespace("pipeline");
    apply(
        ns,
        job("root", null, "exit 3")
            + "---\n"
            + job("child", null, "true").replace("spec:\n", "spec:\n  after: [root]\n")
            + "---\n"
            + job("grandchild", null, "true").replace("spec:\n", "spec:\n  after: [child]\n")
            + "---\n"
            + job("holder", "requests: {octomy.io/cpu-milli: 100}", "sleep 4")
                .replace("spec:\n", "spec:\n  locks: [subject/x]\n"));
    Eventually.within(60, () -> assertThat(phase(ns, "holder")).isEqualTo(JobPhase.Running));
    apply(
        ns,
        job("waiter", "requests: {octomy.io/cpu-milli: 100}", "true")
            .replace("spec:\n", "spec:\n  locks: [subject/x]\n"));
    Eventually.within(
        30,
        () -> {
          BatchJob w = admin.resources(BatchJob.class).inNamespace(ns).withName("waiter").get();
          assertThat(w.getStatus().getReason()).isEqualTo("WaitingForLock");
          assertThat(w.getStatus().getWaitingOn())
              .singleElement()
              .satisfies(
                  o -> {
                    assertThat(o.getKey()).isEqualTo("subject/x");
                    assertThat(o.getJob()).isEqualTo("holder");
                  });
        });
    Map<String, BatchJob> done = awaitAll(ns, Duration.ofSeconds(90), ClusterModeE2E::finished);
    assertThat(done.get("root").getStatus().getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(done.get("root").getStatus().getExitCode()).isEqualTo(3);
    for (String skipped : List.of("child", "grandchild")) {
      assertThat(done.get(skipped).getStatus().getPhase()).isEqualTo(JobPhase.Skipped);
      assertThat(done.get(skipped).getStatus().getReason()).isEqualTo("DependencyFailed");
    }
    assertThat(done.get("child").getStatus().getMessage()).contains("root");
    assertThat(done.get("grandchild").getStatus().getMessage()).contains("root");
    assertThat(done.get("holder").getStatus().getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(done.get("waiter").getStatus().getPhase()).isEqualTo(JobPhase.Succeeded);
  }

  /**
   * The job features a batch user reaches for on day one, each from stock kubectl on the real
   * server with two agents: hold and release, retries, a deadline, clean-up after the end, an
   * array, a gang across both nodes, and a nodeSelector.
   */
  @Test
  @Order(3)
  void holdRetriesDeadlineCleanUpArraysGangsAndSelectorsWorkFromKubectl() throws Exception {
    String ns = product.cluster().namespace("features");
    KubectlRun kubectl = product.cluster().kubectl();
    KubectlRun.Result label = kubectl.run("label", "bn", "node-b", "disk=ssd", "--overwrite");
    assertThat(label.exitCode()).as(label.all()).isZero();
    apply(
        ns,
        job("held", null, "true").replace("spec:\n", "spec:\n  suspend: true\n")
            + "---\n"
            + job("flaky", null, "exit 1").replace("spec:\n", "spec:\n  backoffLimit: 1\n")
            + "---\n"
            + job("slow", null, "sleep 60")
                .replace("spec:\n", "spec:\n  activeDeadlineSeconds: 2\n")
            + "---\n"
            + job("brief", null, "true").replace("spec:\n", "spec:\n  ttlSecondsAfterFinished: 1\n")
            + "---\n"
            + job("sweep", "requests: {octomy.io/cpu-milli: 100}", "echo $OCTOMY_ARRAY_INDEX")
                .replace("spec:\n", "spec:\n  array: {count: 3, maxRunning: 2}\n")
            + "---\n"
            + job("pair", "requests: {octomy.io/cpu-milli: 4000}", "echo $OCTOMY_REPLICA_INDEX")
                .replace("spec:\n", "spec:\n  replicas: 2\n")
            + "---\n"
            + job("on-ssd", "requests: {octomy.io/cpu-milli: 100}", "true")
                .replace("spec:\n", "spec:\n  nodeSelector: {disk: ssd}\n"));
    Eventually.within(30, () -> assertThat(reason(ns, "held")).isEqualTo("Held"));
    assertThat(phase(ns, "held")).isEqualTo(JobPhase.Queued);
    KubectlRun.Result release =
        kubectl.run(
            "-n",
            ns,
            "patch",
            "bj",
            "held",
            "--type=merge",
            "-p",
            "{\"spec\":{\"suspend\":false}}");
    assertThat(release.exitCode()).as(release.all()).isZero();
    Eventually.within(
        120,
        () -> {
          for (String name : List.of("held", "sweep", "pair", "on-ssd")) {
            assertThat(phase(ns, name)).as(name).isEqualTo(JobPhase.Succeeded);
          }
          assertThat(phase(ns, "flaky")).isEqualTo(JobPhase.Failed);
          assertThat(phase(ns, "slow")).isEqualTo(JobPhase.Failed);
          assertThat(admin.resources(BatchJob.class).inNamespace(ns).withName("brief").get())
              .as("brief, deleted a second after it ended")
              .isNull();
        });
    BatchJob flaky = admin.resources(BatchJob.class).inNamespace(ns).withName("flaky").get();
    assertThat(flaky.getStatus().getFailedRuns()).isEqualTo(2);
    assertThat(reason(ns, "slow")).isEqualTo("DeadlineExceeded");
    BatchJob sweep = admin.resources(BatchJob.class).inNamespace(ns).withName("sweep").get();
    assertThat(sweep.getStatus().getArray().getSucceeded()).isEqualTo(3);
    BatchJob pair = admin.resources(BatchJob.class).inNamespace(ns).withName("pair").get();
    assertThat(pair.getStatus().getReplicaNodes()).containsExactlyInAnyOrder("node-a", "node-b");
    BatchJob onSsd = admin.resources(BatchJob.class).inNamespace(ns).withName("on-ssd").get();
    assertThat(onSsd.getStatus().getNode()).isEqualTo("node-b");
    assertThat(ledger.violations()).isEmpty();
  }

  @Test
  @Order(4)
  void aModeChangeLeavesRunningJobsAloneAndChangesWhatIsAdmittedNext() throws Exception {
    String ns = product.cluster().namespace("modes");
    apply(
        ns,
        job("long", "requests: {octomy.io/cpu-milli: 3000}", "sleep 8")
            .replace("spec:\n", "spec:\n  origin: node-a\n"));
    Eventually.within(60, () -> assertThat(phase(ns, "long")).isEqualTo(JobPhase.Running));
    assertThat(
            admin
                .resources(BatchJob.class)
                .inNamespace(ns)
                .withName("long")
                .get()
                .getStatus()
                .getNode())
        .isEqualTo("node-a");
    KubectlRun.Result patch =
        product
            .cluster()
            .kubectl()
            .run(
                "patch",
                "bn",
                "node-a",
                "--type=merge",
                "-p",
                "{\"spec\":{\"mode\":\"Off\",\"ownMode\":\"Off\"}}");
    assertThat(patch.exitCode()).as(patch.all()).isZero();
    try {
      apply(
          ns,
          job("next", "requests: {octomy.io/cpu-milli: 500}", "true")
              .replace("spec:\n", "spec:\n  origin: node-a\n"));
      Map<String, BatchJob> done = awaitAll(ns, Duration.ofSeconds(60), ClusterModeE2E::finished);
      assertThat(done.get("long").getStatus().getPhase()).isEqualTo(JobPhase.Succeeded);
      assertThat(done.get("long").getStatus().getNode()).isEqualTo("node-a");
      assertThat(done.get("next").getStatus().getNode())
          .as("node-a offers nothing now")
          .isEqualTo("node-b");
    } finally {
      product
          .cluster()
          .kubectl()
          .run(
              "patch",
              "bn",
              "node-a",
              "--type=merge",
              "-p",
              "{\"spec\":{\"mode\":\"Drone\",\"ownMode\":\"Drone\"}}");
    }
  }

  @Test
  @Order(5)
  void aRunningJobDeletedWithoutWaitingKeepsItsPlaceUntilItsProcessHasStopped() throws Exception {
    String ns = product.cluster().namespace("deletion");
    Path pidFile = product.dir().resolve("deletion-first.pid");
    // Two seconds to stop once told to: the window in which its place must stay taken. ($$$$ is
    // the shell's $$ once the template's $$ escapes are expanded.)
    String slowToStop =
        "echo $$$$ > " + pidFile + "; trap \"sleep 2; exit 143\" TERM; while :; do sleep 0.2; done";
    apply(
        ns,
        job("filler", "requests: {octomy.io/cpu-milli: 3000}", "sleep 20")
                .replace("spec:\n", "spec:\n  origin: node-b\n")
            + "---\n"
            + job("first", "requests: {octomy.io/cpu-milli: 3000}", slowToStop)
                .replace("spec:\n", "spec:\n  origin: node-a\n"));
    Eventually.within(
        60,
        () -> {
          assertThat(phase(ns, "filler")).isEqualTo(JobPhase.Running);
          assertThat(phase(ns, "first")).isEqualTo(JobPhase.Running);
          assertThat(pidFile).content().matches("[0-9]+\\s*");
        });
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    KubectlRun.Result delete =
        product.cluster().kubectl().run("delete", "bj", "first", "-n", ns, "--wait=false");
    assertThat(delete.exitCode()).as(delete.all()).isZero();
    apply(ns, job("second", "requests: {octomy.io/cpu-milli: 3000}", "true"));

    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    boolean admitted = false;
    while (!admitted && System.nanoTime() < deadline) {
      boolean firstRuns = runs(pid);
      JobPhase second = phase(ns, "second");
      admitted = second != null && second != JobPhase.Queued;
      if (admitted) {
        assertThat(firstRuns)
            .as("second admitted while the deleted job's process %d still ran", pid)
            .isFalse();
      }
      Thread.sleep(100);
    }
    assertThat(admitted).as("second admitted once the first job's process stopped").isTrue();
    Eventually.within(
        30,
        () ->
            assertThat(admin.resources(BatchJob.class).inNamespace(ns).withName("first").get())
                .as("the deleted job goes once its finalizer is removed")
                .isNull());
    Map<String, BatchJob> done = awaitAll(ns, Duration.ofSeconds(60), ClusterModeE2E::finished);
    assertThat(done.get("second").getStatus().getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(ledger.violations()).isEmpty();
  }

  @Test
  @Order(6)
  void killingTheActiveControllerHandsOverThroughTheLease() throws Exception {
    String ns = product.cluster().namespace("takeover");
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < 16; i++) {
      yaml.append(job("work-" + i, "requests: {octomy.io/cpu-milli: 1000}", "sleep " + (2 + i % 3)))
          .append("---\n");
    }
    apply(ns, yaml.toString());
    Eventually.within(60, () -> assertThat(count(ns, JobPhase.Running)).isGreaterThan(2));
    String active = leaseHolder();
    controllers.get(active).kill9();
    Eventually.within(
        60,
        () -> {
          String holder = leaseHolder();
          assertThat(holder).isNotEqualTo(active);
          assertThat(controllers.keySet()).contains(holder);
        });
    // As a Deployment would, a new Pod replaces the one that died.
    controllers.put(active, startController(active));
    Map<String, BatchJob> done = awaitAll(ns, Duration.ofSeconds(180), ClusterModeE2E::finished);
    assertThat(done).hasSize(16);
    assertThat(phases(done).values()).containsOnly(JobPhase.Succeeded);
    assertThat(ledger.violations()).isEmpty();
  }

  @Test
  @Order(7)
  void stoppingTheActiveControllerReleasesTheLeaseToTheStandby() throws Exception {
    String ns = product.cluster().namespace("graceful");
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      yaml.append(job("work-" + i, "requests: {octomy.io/cpu-milli: 1000}", "sleep " + (2 + i % 3)))
          .append("---\n");
    }
    apply(ns, yaml.toString());
    Eventually.within(60, () -> assertThat(count(ns, JobPhase.Running)).isGreaterThan(2));
    String active = leaseHolder();
    String standby =
        controllers.keySet().stream().filter(p -> !p.equals(active)).findFirst().orElseThrow();
    int transitions = lease().getSpec().getLeaseTransitions();
    ProductProcess stopped = controllers.get(active);
    List<LeaseHistory.Version> after;
    long sigterm;
    try (LeaseHistory history = new LeaseHistory(admin, ProductDeployment.NS, LEASE)) {
      history.awaitStarted(Duration.ofSeconds(10));
      sigterm = System.nanoTime();
      stopped.stop();
      Eventually.within(60, () -> assertThat(leaseHolder()).isEqualTo(standby));
      after = history.since(sigterm);
    }
    String seen = LeaseHistory.describe(after, sigterm);
    LeaseHistory.Version taken =
        after.stream()
            .filter(v -> standby.equals(v.holder()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the standby never held the Lease: " + seen));
    Duration handOver = Duration.ofNanos(taken.receivedNanos() - sigterm);
    System.out.printf(
        "graceful hand-over: %d ms after SIGTERM; the Lease since: %s%n",
        handOver.toMillis(), seen);
    assertThat(handOver)
        .as("SIGTERM to the standby holding the Lease: %s", seen)
        .isLessThanOrEqualTo(HAND_OVER_BOUND);
    // Renewals by the stopping replica may come first; then the release, then the take-over.
    List<LeaseHistory.Version> changes =
        after.stream().dropWhile(v -> active.equals(v.holder())).toList();
    assertThat(changes).as(seen).hasSizeGreaterThanOrEqualTo(2);
    assertThat(changes.get(0))
        .as("the release: %s", seen)
        .returns("", LeaseHistory.Version::holder)
        .returns(1, LeaseHistory.Version::durationSeconds)
        .returns(transitions, LeaseHistory.Version::transitions);
    assertThat(changes.get(1))
        .as("the take-over: %s", seen)
        .isEqualTo(taken)
        .returns(15, LeaseHistory.Version::durationSeconds)
        .returns(transitions + 1, LeaseHistory.Version::transitions);
    assertThat(changes).as(seen).noneMatch(v -> active.equals(v.holder()));
    assertThat(stopped.exitCode()).as("the JVM's code for SIGTERM (128 + 15)").isEqualTo(143);
    assertThat(stopped.output()).contains("released the Lease");

    controllers.put(active, startController(active));
    Map<String, BatchJob> done = awaitAll(ns, Duration.ofSeconds(180), ClusterModeE2E::finished);
    assertThat(done).hasSize(12);
    assertThat(phases(done).values()).containsOnly(JobPhase.Succeeded);
    assertThat(ledger.violations()).isEmpty();
  }

  @Test
  @Order(8)
  void healthAsFluxKptAndArgoCdComputeIt() throws Exception {
    String ns = product.cluster().namespace("health");
    apply(
        ns,
        job("done", null, "true")
            + "---\n"
            + job("failed", null, "exit 1")
            + "---\n"
            + job("running", "requests: {octomy.io/cpu-milli: 100}", "sleep 60")
            + "---\n"
            + job("queued", "requests: {octomy.io/cpu-milli: 100000}", "true")
            + "---\n"
            + job("cycle-a", null, "true").replace("spec:\n", "spec:\n  after: [cycle-b]\n")
            + "---\n"
            + job("cycle-b", null, "true").replace("spec:\n", "spec:\n  after: [cycle-a]\n"));
    Map<String, JobPhase> expected =
        Map.of(
            "done", JobPhase.Succeeded,
            "failed", JobPhase.Failed,
            "running", JobPhase.Running,
            "queued", JobPhase.Queued,
            "cycle-a", JobPhase.Rejected,
            "cycle-b", JobPhase.Rejected);
    Eventually.within(
        60, () -> expected.forEach((name, p) -> assertThat(phase(ns, name)).as(name).isEqualTo(p)));
    Path jobs = product.dir().resolve("health-jobs.yaml");
    Path nodes = product.dir().resolve("health-nodes.yaml");
    Files.writeString(
        jobs, product.cluster().kubectl().run("get", "bj", "-n", ns, "-o", "yaml").out());
    Files.writeString(
        nodes,
        product.cluster().kubectl().run("get", "bn", "node-a", "node-b", "-o", "yaml").out());

    // kstatus: every observed BatchJob is Current, whatever its phase (see docs/real-cluster.md).
    Map<String, HealthTools.Verdict> kstatus = HealthTools.kstatus(jobs);
    assertThat(kstatus.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    kstatus.forEach(
        (name, v) -> assertThat(v.status()).as("kstatus of %s: %s", name, v).isEqualTo("Current"));
    assertThat(HealthTools.kstatus(nodes).values())
        .extracting(HealthTools.Verdict::status)
        .containsOnly("Current");

    Path chartHealth = Path.of("helm/octomy-batch/health");
    Map<String, HealthTools.Verdict> argo =
        HealthTools.argoLua(chartHealth.resolve("batchjob.lua"), jobs);
    assertThat(argo.get("done").status()).isEqualTo("Healthy");
    assertThat(argo.get("failed").status()).isEqualTo("Degraded");
    assertThat(argo.get("failed").message()).contains("exit code 1");
    assertThat(argo.get("cycle-a").status()).isEqualTo("Degraded");
    assertThat(argo.get("cycle-a").message()).contains("cycle");
    assertThat(argo.get("running").status()).isEqualTo("Progressing");
    assertThat(argo.get("queued").status()).isEqualTo("Progressing");
    assertThat(argo.get("queued").message()).contains("100000");
    assertThat(HealthTools.argoLua(chartHealth.resolve("batchnode.lua"), nodes).values())
        .extracting(HealthTools.Verdict::status)
        .containsOnly("Healthy");

    // Two edits that leave the cycle in place are decided again, each time with the same words:
    // describe shows one Rejected line with a count, as for any repeated Event on a cluster.
    for (int cpu : new int[] {100, 200}) {
      KubectlRun.Result edit =
          product
              .cluster()
              .kubectl()
              .run(
                  "patch",
                  "bj",
                  "cycle-a",
                  "-n",
                  ns,
                  "--type",
                  "merge",
                  "-p",
                  "{\"spec\":{\"resources\":{\"requests\":{\"octomy.io/cpu-milli\":"
                      + cpu
                      + "}}}}");
      assertThat(edit.exitCode()).as(edit.all()).isZero();
      Eventually.within(
          30,
          () -> {
            BatchJob j = admin.resources(BatchJob.class).inNamespace(ns).withName("cycle-a").get();
            assertThat(j.getStatus().getObservedGeneration())
                .isEqualTo(j.getMetadata().getGeneration());
          });
    }
    Eventually.within(
        30,
        () ->
            assertThat(product.cluster().kubectl().run("describe", "bj", "cycle-a", "-n", ns).out())
                .containsPattern("Warning +Rejected +\\S+ \\(x3 over \\S+\\)"));
  }

  @Test
  @Order(9)
  void noRequestOfTheControllerOrTheAgentsWasRefused() {
    Path audit = product.cluster().auditLog();
    for (String sa : List.of(ProductDeployment.CONTROLLER_SA, ProductDeployment.AGENT_SA)) {
      List<AuditLog.Request> all = AuditLog.requestsOf(audit, ProductDeployment.user(sa));
      List<AuditLog.Request> refused =
          all.stream()
              .filter(r -> r.code() == 403)
              // ChartPermissionsE2E refuses its own probe agent on purpose.
              .filter(r -> !r.podName().contains("-vap-"))
              // A write into a namespace another test is deleting is refused by the server's
              // namespace lifecycle, not by RBAC: an Event about a job that is going away with it.
              .filter(r -> !r.reason().endsWith("because it is being terminated"))
              .toList();
      assertThat(all).as("requests by %s", sa).hasSizeGreaterThan(50);
      assertThat(refused).as("refused requests by %s", sa).isEmpty();
    }
    assertThat(ledger.violations()).isEmpty();
    assertThat(ledger.changes()).isGreaterThan(100);
  }

  /**
   * Alive and not a zombie: once its wrapper is gone the job's shell is re-parented to a PID 1 that
   * may reap it late, and a zombie runs nothing.
   */
  private static boolean runs(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException e) {
      return false; // gone
    }
  }

  static String job(String name, String requests, String command) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          %s
          template: {spec: {restartPolicy: Never, containers: [{name: main, image: busybox, command: [sh, -c, '%s']}]}}
        """
        .formatted(name, requests == null ? "" : "resources: {" + requests + "}", command);
  }

  private static void apply(String ns, String yaml) {
    KubectlRun.Result r =
        product.cluster().kubectl().runWithInput(yaml, "apply", "-n", ns, "-f", "-");
    assertThat(r.exitCode()).as(r.all()).isZero();
  }

  static boolean finished(BatchJob j) {
    JobPhase p = j.getStatus() == null ? null : j.getStatus().getPhase();
    return p == JobPhase.Succeeded
        || p == JobPhase.Failed
        || p == JobPhase.Skipped
        || p == JobPhase.Rejected;
  }

  private static String reason(String ns, String name) {
    BatchJob j = admin.resources(BatchJob.class).inNamespace(ns).withName(name).get();
    return j == null || j.getStatus() == null ? null : j.getStatus().getReason();
  }

  private static JobPhase phase(String ns, String name) {
    BatchJob j = admin.resources(BatchJob.class).inNamespace(ns).withName(name).get();
    return j == null || j.getStatus() == null ? null : j.getStatus().getPhase();
  }

  private static long count(String ns, JobPhase phase) {
    return admin.resources(BatchJob.class).inNamespace(ns).list().getItems().stream()
        .filter(j -> j.getStatus() != null && j.getStatus().getPhase() == phase)
        .count();
  }

  static Map<String, BatchJob> awaitAll(String ns, Duration timeout, Predicate<BatchJob> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<BatchJob> jobs = List.of();
    while (System.nanoTime() < deadline) {
      jobs = admin.resources(BatchJob.class).inNamespace(ns).list().getItems();
      if (!jobs.isEmpty() && jobs.stream().allMatch(done)) {
        return jobs.stream().collect(Collectors.toMap(j -> j.getMetadata().getName(), j -> j));
      }
      Thread.sleep(250);
    }
    throw new AssertionError(
        "not all jobs of "
            + ns
            + " finished within "
            + timeout
            + ": "
            + jobs.stream()
                .map(
                    j ->
                        j.getMetadata().getName()
                            + "="
                            + (j.getStatus() == null
                                ? "-"
                                : j.getStatus().getPhase() + "/" + j.getStatus().getReason()))
                .toList());
  }

  private static Map<String, JobPhase> phases(Map<String, BatchJob> jobs) {
    Map<String, JobPhase> out = new HashMap<>();
    jobs.forEach((n, j) -> out.put(n, j.getStatus().getPhase()));
    return out;
  }

  static String leaseHolder() {
    Lease l = lease();
    return l == null ? null : l.getSpec().getHolderIdentity();
  }

  private static Lease lease() {
    return admin.resources(Lease.class).inNamespace(ProductDeployment.NS).withName(LEASE).get();
  }
}
