package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.CannotStart;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Times;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against the embedded API server (the product's CRDs, as in standalone mode), with fixed
 * host readings and real processes.
 */
class NodeAgentIT {

  private static final String NODE = "ws-7";
  private static final String NS = "studio";
  private static final String CPU = MeasuredResources.CPU_MILLI;
  private static final String MEM = MeasuredResources.MEMORY_BYTES;
  private static final long GIB = 1L << 30;

  /** 8 processors, 16 GiB, 1 GPU; 1.2 cores and 4 GiB in use. */
  private static final HostProbe PROBE = () -> new HostReadings(8, 16 * GIB, 1, 1200, 4 * GIB);

  @TempDir Path state;
  @TempDir Path cgroups;
  @TempDir Path serverState;
  private EmbeddedApiServer server;
  private KubernetesClient client;
  private final List<NodeAgent> agents = new ArrayList<>();

  @BeforeEach
  void startServer() throws IOException {
    server = EmbeddedApiServer.start(serverState, 0, StandaloneRuntime.productCrds());
    client = new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
  }

  @AfterEach
  void stopAll() throws IOException {
    agents.forEach(NodeAgent::close);
    killJobProcesses();
    client.close();
    server.close();
  }

  // --- (a) the BatchNode's spec --------------------------------------------------------------

  @Test
  void createsTheMissingNodeWithTheFlagsMode() throws Exception {
    start(settings().withInitialMode(NodeMode.Background));
    BatchNode node = client.resources(BatchNode.class).withName(NODE).get();
    assertThat(node.getSpec().getMode()).isEqualTo(NodeMode.Background);
    assertThat(node.getSpec().getOwnMode()).as("unset: the same as mode").isNull();
    assertThat(node.getSpec().getExecutor()).isEqualTo(Executor.Process);
    // Background: 75% of the processors, 50% of memory, 100% of GPUs.
    assertThat(node.getStatus().getOffer().getOthers())
        .containsEntry(CPU, 6000L)
        .containsEntry(MEM, 8 * GIB)
        .containsEntry(MeasuredResources.GPU, 1L);
    assertThat(node.getStatus().getOffer().getOwn())
        .isEqualTo(node.getStatus().getOffer().getOthers());
  }

  /**
   * A node kept in Git names only its mode; applied (server-side, forced, as Flux and Argo CD do)
   * after the agent created the node, its own work gets that mode too, as when Git came first.
   */
  @Test
  void aNodeManifestNamingOnlyTheModeAppliedAfterTheAgentGovernsItsOwnWorkToo() throws Exception {
    start(settings());
    BatchNode manifest = new BatchNode();
    manifest.setMetadata(new ObjectMetaBuilder().withName(NODE).build());
    BatchNodeSpec spec = new BatchNodeSpec();
    spec.setMode(NodeMode.Background);
    spec.setExecutor(Executor.Process);
    manifest.setSpec(spec);
    client
        .resources(BatchNode.class)
        .resource(manifest)
        .fieldManager("kustomize-controller")
        .forceConflicts()
        .serverSideApply();

    BatchNodeStatus status =
        awaitStatus(
            "the offer of the applied mode", s -> s.getOffer().getOthers().get(CPU) == 6000L);
    assertThat(status.getOffer().getOwn()).isEqualTo(status.getOffer().getOthers());
    assertThat(client.resources(BatchNode.class).withName(NODE).get().getSpec().getOwnMode())
        .isNull();
  }

  @Test
  void neverRewritesAnExistingSpecAndReportsAtOnceWhenItChanges() throws Exception {
    BatchNodeSpec spec = new BatchNodeSpec();
    spec.setMode(NodeMode.Interactive);
    spec.setOwnMode(NodeMode.Drone);
    spec.setExecutor(Executor.Process);
    spec.setResources(Map.of("example.com/su2-processes", 16L));
    BatchNode mine = new BatchNode();
    mine.setMetadata(new ObjectMetaBuilder().withName(NODE).build());
    mine.setSpec(spec);
    client.resources(BatchNode.class).resource(mine).create();

    // A long interval: any report after the first one comes from the spec change.
    start(
        settings().withInitialMode(NodeMode.Background).withReportInterval(Duration.ofMinutes(5)));
    BatchNode node = client.resources(BatchNode.class).withName(NODE).get();
    assertThat(node.getSpec()).isEqualTo(spec);
    BatchNodeStatus status = node.getStatus();
    assertThat(status.getCapacity())
        .containsEntry(CPU, 8000L)
        .containsEntry(MEM, 16 * GIB)
        .containsEntry(MeasuredResources.GPU, 1L)
        .containsEntry("example.com/su2-processes", 16L);
    assertThat(status.getOffer().getOthers())
        .containsEntry(CPU, 4000L)
        .containsEntry(MEM, 4 * GIB)
        .containsEntry(MeasuredResources.GPU, 0L)
        .containsEntry("example.com/su2-processes", 8L);
    assertThat(status.getOffer().getOwn()).isEqualTo(status.getCapacity());

    client
        .resources(BatchNode.class)
        .withName(NODE)
        .edit(
            n -> {
              n.getSpec().setMode(NodeMode.Off);
              return n;
            });
    BatchNodeStatus after =
        awaitStatus(
            "the offer after the mode change", s -> s.getOffer().getOthers().get(CPU) == 0L);
    assertThat(after.getOffer().getOthers())
        .containsOnlyKeys(status.getCapacity().keySet())
        .allSatisfy((k, v) -> assertThat(v).isZero());
    assertThat(after.getOffer().getOwn()).isEqualTo(status.getCapacity());
    assertThat(client.resources(BatchNode.class).withName(NODE).get().getSpec().getOwnMode())
        .isEqualTo(NodeMode.Drone);
  }

  // --- (b) status fields, Pod executor ---------------------------------------------------------

  @Test
  void reportsCapacityAllocationHeartbeatReadyAndPodJobs() throws Exception {
    BatchJob admitted =
        place(create(job("admitted", Map.of(CPU, 1000L, MEM, GIB))), NODE, JobPhase.Admitted);
    BatchJob running =
        place(
            create(job("running", Map.of(CPU, 2000L, "example.com/licenses", 1L))),
            NODE,
            JobPhase.Running);
    place(create(job("elsewhere", Map.of(CPU, 4000L))), "ws-8", JobPhase.Running);
    place(create(job("done", Map.of(CPU, 8000L))), NODE, JobPhase.Succeeded);
    Pod pod =
        client
            .pods()
            .inNamespace(NS)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("running-pod")
                    .addToLabels(Labels.JOB_UID, running.getMetadata().getUid())
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(NODE)
                    .addNewContainer()
                    .withName("main")
                    .withImage("busybox")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    pod.setStatus(
        new PodStatusBuilder().withPhase("Running").withStartTime("2030-01-01T00:00:00Z").build());
    client.pods().inNamespace(NS).resource(pod).updateStatus();

    Instant before = Instant.now().minusSeconds(1);
    start(settings().withExecutor(Executor.Pod));
    BatchNodeStatus status =
        awaitStatus(
            "allocation and the Pod job",
            s -> s.getAllocated().size() == 3 && s.getJobs().size() == 1);
    assertThat(status.getAllocated())
        .isEqualTo(Map.of(CPU, 3000L, MEM, GIB, "example.com/licenses", 1L));
    assertThat(status.getUsage()).isEqualTo(Map.of(CPU, 1200L, MEM, 4 * GIB));
    NodeJob j = status.getJobs().get(0);
    assertThat(j.getName()).isEqualTo("running");
    assertThat(j.getUid()).isEqualTo(running.getMetadata().getUid());
    assertThat(j.getPhase()).isEqualTo(JobPhase.Running);
    assertThat(j.getStartedAt()).isEqualTo("2030-01-01T00:00:00Z");
    assertThat(j.getUsage()).isNull(); // no cgroup for it under the fake root
    assertThat(Conditions.isTrue(status.getConditions(), ConditionTypes.READY)).isTrue();
    assertThat(Conditions.find(status.getConditions(), ConditionTypes.READY).getReason())
        .isEqualTo("AgentReporting");
    Instant first = Times.parse(status.getHeartbeatTime());
    assertThat(first).isAfterOrEqualTo(before.truncatedTo(ChronoUnit.SECONDS));
    String transition =
        Conditions.find(status.getConditions(), ConditionTypes.READY).getLastTransitionTime();

    // The heartbeat moves on at the interval; Ready's transition time does not.
    BatchNodeStatus later =
        awaitStatus("a later heartbeat", s -> Times.parse(s.getHeartbeatTime()).isAfter(first));
    assertThat(Conditions.find(later.getConditions(), ConditionTypes.READY).getLastTransitionTime())
        .isEqualTo(transition);

    // A job leaving the node releases its share.
    place(admitted, NODE, JobPhase.Succeeded);
    assertThat(
            awaitStatus("released allocation", s -> s.getAllocated().get(MEM) == null)
                .getAllocated())
        .isEqualTo(Map.of(CPU, 2000L, "example.com/licenses", 1L));
  }

  // --- (c) a Process job runs once --------------------------------------------------------------

  @Test
  void anAgentThatStopsSaysSoAndItsNextStartSaysReadyAgain() throws Exception {
    NodeAgent first = start(settings());
    first.close();
    Condition stopped = ready(client.resources(BatchNode.class).withName(NODE).get());
    assertThat(stopped.getStatus()).isEqualTo(ConditionTypes.FALSE);
    assertThat(stopped.getReason()).isEqualTo(NodeStatusComposer.REASON_STOPPED);
    assertThat(stopped.getMessage()).contains("nothing new is admitted here");

    start(settings());
    Condition again = ready(client.resources(BatchNode.class).withName(NODE).get());
    assertThat(again.getStatus()).isEqualTo(ConditionTypes.TRUE);
    assertThat(again.getReason()).isEqualTo(NodeStatusComposer.REASON_REPORTING);
  }

  @Test
  void aSecondAgentOnTheSameNodeRefusesToStartWhileTheFirstOneReports(@TempDir Path otherState)
      throws Exception {
    NodeAgent first = start(settings());
    NodeAgent second =
        new NodeAgent(
            client,
            settings().withStateDir(otherState),
            PROBE,
            Clock.systemUTC(),
            CgroupBounds.NONE,
            cgroups);
    agents.add(second);
    assertThatThrownBy(second::start)
        .isInstanceOf(CannotStart.class)
        .hasMessageContaining("node " + NODE + " is reported by another agent")
        .hasMessageContaining("give this one another --node");

    // the first one restarted is the same claimant (its state directory), and starts at once
    first.close();
    start(settings()).close();

    // once its reports have stopped for three report intervals, another agent takes over
    NodeAgent later =
        new NodeAgent(
            client,
            settings().withStateDir(otherState),
            PROBE,
            Clock.offset(Clock.systemUTC(), Duration.ofSeconds(4)),
            CgroupBounds.NONE,
            cgroups);
    agents.add(later);
    later.start();
    assertThat(client.resources(BatchNode.class).withName(NODE).get().getStatus().getAgent())
        .isEqualTo(NodeClaim.idOf(otherState));
  }

  @Test
  void aPodAgentNeedsNoWritableStateDirectoryAndClaimsNothing() throws Exception {
    // as in the chart's DaemonSet, whose root filesystem is read-only
    start(settings().withExecutor(Executor.Pod).withStateDir(Path.of("/proc/octomy-unwritable")));
    BatchNode node = client.resources(BatchNode.class).withName(NODE).get();
    assertThat(ready(node).getStatus()).isEqualTo(ConditionTypes.TRUE);
    assertThat(node.getStatus().getAgent()).isNull();
  }

  private static Condition ready(BatchNode node) {
    return Conditions.find(node.getStatus().getConditions(), ConditionTypes.READY);
  }

  @Test
  void runsAnAdmittedJobExactlyOnceAndReportsItsExit() throws Exception {
    start(settings());
    BatchJob job =
        place(
            create(job("fails", Map.of(CPU, 500L), "sh", "-c", "echo hi; sleep 0.5; exit 3")),
            NODE,
            JobPhase.Admitted);
    String uid = job.getMetadata().getUid();
    NodeJob done = awaitJob(uid, j -> j.getPhase() == JobPhase.Failed);
    assertThat(done.getExitCode()).isEqualTo(3);
    assertThat(done.getReason()).isEqualTo(JobRecord.REASON_FAILED);
    assertThat(done.getNamespace()).isEqualTo(NS);
    assertThat(done.getName()).isEqualTo("fails");
    assertThat(Times.parse(done.getFinishedAt()))
        .isAfterOrEqualTo(Times.parse(done.getStartedAt()));
    // Half a second at a 200 ms sample interval: measured, if only a little.
    assertThat(done.getUsage()).containsKeys(CPU, MEM);
    assertThat(done.getUsage().get(MEM)).isPositive();

    // The BatchJob still says Admitted (no controller here); more reconciles must not rerun it.
    place(job, NODE, JobPhase.Admitted);
    Thread.sleep(1500);
    Path log =
        state.resolve("jobs").resolve(NS).resolve("fails").resolve(uid).resolve("output.log");
    assertThat(Files.readString(log)).isEqualTo("hi\n");
    assertThat(awaitJob(uid, j -> true).getExitCode()).isEqualTo(3);

    // Once the controller has written the outcome, the node stops carrying the entry (its status
    // would otherwise grow with every job the node ever ran); the job is still never rerun.
    place(job, NODE, JobPhase.Failed);
    awaitStatus(
        "the entry of a recorded job to go",
        s -> s.getJobs() == null || s.getJobs().stream().noneMatch(j -> uid.equals(j.getUid())));
    place(job, NODE, JobPhase.Admitted);
    Thread.sleep(1500);
    assertThat(Files.readString(log)).isEqualTo("hi\n");
  }

  @Test
  void refusesAJobWithoutACommand() throws Exception {
    start(settings());
    BatchJob job = place(create(job("image-only", Map.of(CPU, 500L))), NODE, JobPhase.Admitted);
    NodeJob j = awaitJob(job.getMetadata().getUid(), x -> x.getPhase() == JobPhase.Failed);
    assertThat(j.getReason()).isEqualTo(LaunchPlan.NO_COMMAND);
    assertThat(j.getExitCode()).isNull();
    assertThat(state.resolve("jobs").resolve(NS).resolve("image-only")).doesNotExist();
  }

  // --- (d) restart ------------------------------------------------------------------------------

  @Test
  void aRestartedAgentReadoptsItsRunningJobAndNeverStartsItTwice() throws Exception {
    NodeAgent first = start(settings());
    BatchJob job =
        place(
            create(job("long", Map.of(CPU, 500L), "sh", "-c", "echo started; sleep 4")),
            NODE,
            JobPhase.Admitted);
    String uid = job.getMetadata().getUid();
    awaitJob(uid, j -> j.getPhase() == JobPhase.Running);
    long pid = pidOf(uid);
    first.close();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);

    Instant restart = Instant.now();
    start(settings());
    NodeJob readopted =
        awaitStatus(
                "the new agent's first report",
                s ->
                    !Times.parse(s.getHeartbeatTime())
                        .isBefore(restart.truncatedTo(ChronoUnit.SECONDS)))
            .getJobs()
            .stream()
            .filter(j -> uid.equals(j.getUid()))
            .findFirst()
            .orElseThrow();
    assertThat(readopted.getPhase()).isEqualTo(JobPhase.Running);
    assertThat(pidOf(uid)).isEqualTo(pid);

    NodeJob done = awaitJob(uid, j -> j.getPhase() == JobPhase.Succeeded);
    assertThat(done.getExitCode()).isZero();
    Path log = state.resolve("jobs").resolve(NS).resolve("long").resolve(uid).resolve("output.log");
    assertThat(Files.readString(log)).isEqualTo("started\n");
  }

  // --- (e) deletion -----------------------------------------------------------------------------

  @Test
  void deletingTheJobStopsItsProcessAndDropsItsEntry() throws Exception {
    start(settings());
    BatchJob job =
        place(create(job("doomed", Map.of(CPU, 500L), "sleep", "30")), NODE, JobPhase.Admitted);
    String uid = job.getMetadata().getUid();
    awaitJob(uid, j -> j.getPhase() == JobPhase.Running);
    long pid = pidOf(uid);

    client.resources(BatchJob.class).inNamespace(NS).withName("doomed").delete();
    await(
        "process " + pid + " to end",
        Duration.ofSeconds(20),
        () -> ProcessHandle.of(pid).map(ProcessLiveness::hasExited).orElse(true),
        ended -> ended);
    awaitStatus(
        "the entry to go", s -> s.getJobs().stream().noneMatch(j -> uid.equals(j.getUid())));
    await(
        "the job's files to go",
        Duration.ofSeconds(10),
        () -> Files.exists(state.resolve("jobs").resolve(NS).resolve("doomed").resolve(uid)),
        exists -> !exists);
  }

  @Test
  void aRunningJobTheControllerEndedIsStoppedSoItDoesNotRunBesideItsSuccessor() throws Exception {
    start(settings());
    BatchJob job =
        place(create(job("orphan", Map.of(CPU, 500L), "sleep", "30")), NODE, JobPhase.Admitted);
    String uid = job.getMetadata().getUid();
    awaitJob(uid, j -> j.getPhase() == JobPhase.Running);
    long pid = pidOf(uid);

    // The controller ended it (its BatchNode was gone past the heartbeat timeout): it holds no
    // place any more.
    place(job, NODE, JobPhase.Failed);
    await(
        "process " + pid + " to end",
        Duration.ofSeconds(20),
        () -> ProcessHandle.of(pid).map(ProcessLiveness::hasExited).orElse(true),
        ended -> ended);
  }

  // --- helpers ----------------------------------------------------------------------------------

  private AgentSettings settings() {
    return AgentSettings.defaults(NODE)
        .withStateDir(state)
        .withReportInterval(Duration.ofSeconds(1))
        .withSampleInterval(Duration.ofMillis(200));
  }

  private NodeAgent start(AgentSettings settings) throws InterruptedException {
    NodeAgent agent =
        new NodeAgent(client, settings, PROBE, Clock.systemUTC(), CgroupBounds.NONE, cgroups);
    agents.add(agent);
    return agent.start();
  }

  private static BatchJob job(String name, Map<String, Long> requests, String... command) {
    ApiFixtures.JobBuilder j = ApiFixtures.aJob(name).namespace(NS).command(command);
    requests.forEach(j::request);
    return j.build();
  }

  private BatchJob create(BatchJob job) {
    return client.resources(BatchJob.class).inNamespace(NS).resource(job).create();
  }

  /** Plays the controller: places the job on a node in a phase. */
  private BatchJob place(BatchJob job, String node, JobPhase phase) {
    BatchJob fresh =
        client
            .resources(BatchJob.class)
            .inNamespace(NS)
            .withName(job.getMetadata().getName())
            .get();
    BatchJobStatus s = new BatchJobStatus();
    s.setNode(node);
    s.setPhase(phase);
    fresh.setStatus(s);
    return client.resources(BatchJob.class).inNamespace(NS).resource(fresh).updateStatus();
  }

  private BatchNodeStatus awaitStatus(String what, Predicate<BatchNodeStatus> done)
      throws InterruptedException {
    return await(
        what,
        Duration.ofSeconds(15),
        () ->
            Optional.ofNullable(client.resources(BatchNode.class).withName(NODE).get())
                .map(BatchNode::getStatus)
                .orElse(null),
        s -> s != null && done.test(s));
  }

  private NodeJob awaitJob(String uid, Predicate<NodeJob> done) throws InterruptedException {
    return awaitStatus(
            "job " + uid,
            s -> s.getJobs().stream().anyMatch(j -> uid.equals(j.getUid()) && done.test(j)))
        .getJobs()
        .stream()
        .filter(j -> uid.equals(j.getUid()))
        .findFirst()
        .orElseThrow();
  }

  /** Polls until {@code done} holds; returns the value that did. */
  private static <T> T await(String what, Duration timeout, Supplier<T> probe, Predicate<T> done) {
    AtomicReference<T> last = new AtomicReference<>();
    try {
      return Awaitility.await(what)
          .atMost(timeout)
          .pollInSameThread()
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                last.set(probe.get());
                return last.get();
              },
              done);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "timed out after " + timeout + " waiting for " + what + "; last seen: " + last.get(), e);
    }
  }

  /** The pid the executor recorded for a job, from its state file. */
  private long pidOf(String uid) throws IOException {
    try (Stream<Path> files = Files.walk(state.resolve("jobs"))) {
      Path file =
          files.filter(p -> p.endsWith(Path.of(uid, "state.json"))).findFirst().orElseThrow();
      return new ObjectMapper().readTree(file.toFile()).get("pid").asLong();
    }
  }

  /** Whatever a test left running (closing an agent leaves processes running on purpose). */
  private void killJobProcesses() throws IOException {
    if (!Files.isDirectory(state.resolve("jobs"))) {
      return;
    }
    try (Stream<Path> files = Files.walk(state.resolve("jobs"))) {
      for (Path f : files.filter(p -> p.getFileName().toString().equals("state.json")).toList()) {
        JsonNode pid = new ObjectMapper().readTree(f.toFile()).get("pid");
        if (pid != null && pid.isNumber()) {
          ProcessHandle.of(pid.asLong())
              .ifPresent(
                  h -> {
                    h.descendants().forEach(ProcessHandle::destroyForcibly);
                    h.destroyForcibly();
                  });
        }
      }
    }
  }
}
