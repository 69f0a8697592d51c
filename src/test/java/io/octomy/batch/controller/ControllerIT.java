package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.CPU;
import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.GroupPolicy;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller against the fabric8 mock API server (CRUD mode): jobs and nodes in, statuses and
 * Pods out.
 */
class ControllerIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private KubernetesMockServer server;
  private KubernetesClient client;
  private TestClock clock;
  private BatchController controller;

  @BeforeEach
  void setUp() {
    server = MockApi.crudServer();
    client = server.createClient();
    MockApi.installCrds(client);
    clock = TestClock.at(Instant.now());
  }

  @AfterEach
  void tearDown() {
    if (controller != null) {
      controller.close();
    }
    client.close();
    server.destroy();
  }

  private void startController(Policy policy) throws Exception {
    controller =
        BatchController.start(
            client,
            new BatchController.ControllerOptions(
                policy,
                false,
                "default",
                "127.0.0.1",
                0,
                new AdmissionLoop.Settings(
                    Duration.ofMillis(50), Duration.ofMillis(300), Duration.ofSeconds(30), 4)),
            clock);
  }

  private BatchJobStatus status(String name) {
    BatchJob j = client.resources(BatchJob.class).inNamespace("default").withName(name).get();
    return j == null ? null : j.getStatus();
  }

  private void awaitReason(String name, String reason) {
    try {
      Eventually.until(
          WAIT,
          name + " to have reason " + reason,
          () -> status(name) != null && reason.equals(status(name).getReason()));
    } catch (AssertionError e) {
      BatchJob j = client.resources(BatchJob.class).inNamespace("default").withName(name).get();
      throw new AssertionError(e.getMessage() + "; the job is " + Serialization.asJson(j), e);
    }
  }

  private Pod podOf(String job) {
    return client.pods().inNamespace("default").list().getItems().stream()
        .filter(p -> job.equals(p.getMetadata().getLabels().get(Labels.JOB)))
        .findFirst()
        .orElse(null);
  }

  private void finishPod(String job, String phase, int exitCode) {
    Pod pod = podOf(job);
    pod.setStatus(
        new PodStatusBuilder()
            .withPhase(phase)
            .withStartTime(Times.format(clock.instant()))
            .withContainerStatuses(
                new ContainerStatusBuilder()
                    .withName("main")
                    .withState(
                        new ContainerStateBuilder()
                            .withNewTerminated()
                            .withExitCode(exitCode)
                            .withFinishedAt(Times.format(clock.instant()))
                            .endTerminated()
                            .build())
                    .build())
            .build());
    client.pods().inNamespace("default").resource(pod).updateStatus();
  }

  private List<RecordedRequest> drainRequests() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
      out.add(r);
    }
    return out;
  }

  private String http(String path) throws Exception {
    var req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + controller.metricsPort() + path))
            .build();
    var resp = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
    return resp.statusCode() + " " + resp.body();
  }

  /**
   * A report as the node's agent writes it: a new heartbeat, and Ready (read again after a
   * conflict).
   */
  private void heartbeat(String node) {
    heartbeat(node, clock.instant());
  }

  private void heartbeat(String node, Instant at) {
    for (int attempt = 1; ; attempt++) {
      var n = client.resources(BatchNode.class).withName(node).get();
      n.getStatus().setHeartbeatTime(Times.format(at));
      n.getStatus()
          .setConditions(
              Conditions.set(
                  n.getStatus().getConditions(),
                  ConditionTypes.READY,
                  true,
                  "AgentReporting",
                  "the agent reported",
                  null,
                  at));
      try {
        client.resources(BatchNode.class).resource(n).updateStatus();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 3) {
          throw e;
        }
      }
    }
  }

  /** The default policy with a heartbeat timeout longer than any clock jump of a test. */
  private static Policy patientPolicy() {
    Policy d = Policy.defaults();
    return new Policy(d.modes(), d.priority(), Map.of(), Map.of(), Duration.ofHours(6));
  }

  private Condition readyOf(String node) {
    var n = client.resources(BatchNode.class).withName(node).get();
    return Conditions.find(n.getStatus().getConditions(), ConditionTypes.READY);
  }

  @Test
  void admitsToANodeAndCreatesItsPodWithoutLimits() throws Exception {
    aNode("n1").capacity(CPU, 4000).heartbeat(clock.instant()).create(client);
    startController(Policy.defaults());
    aJob("a").cpu(1000).create(client);

    awaitReason("a", "Admitted");
    BatchJobStatus s = status("a");
    assertThat(s.getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(s.getNode()).isEqualTo("n1");
    assertThat(s.getServiceClass().name()).isEqualTo("Guaranteed");
    assertThat(Conditions.isTrue(s.getConditions(), ConditionTypes.ADMITTED)).isTrue();
    Eventually.until(WAIT, "the pod of a", () -> podOf("a") != null);
    Pod pod = podOf("a");
    assertThat(pod.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(pod.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getKind()).isEqualTo("BatchJob"));
    Eventually.until(
        WAIT,
        "an Admitted event",
        () ->
            client.v1().events().inNamespace("default").list().getItems().stream()
                .anyMatch(
                    e ->
                        "Admitted".equals(e.getReason())
                            && "a".equals(e.getInvolvedObject().getName())));
    assertThat(http("/healthz")).startsWith("200");
    assertThat(http("/readyz")).startsWith("200");
    // The job gauges are set at the end of a pass: the one after the cache has seen the admission.
    Eventually.until(
        WAIT,
        "the Admitted job in the gauges",
        () -> {
          try {
            return http("/metrics")
                .contains(
                    "octomy_jobs{class=\"Guaranteed\",phase=\"Admitted\",reason=\"Admitted\"}");
          } catch (Exception e) {
            return false;
          }
        });
    assertThat(http("/metrics"))
        .contains(
            "octomy_admissions_total 1.0",
            "octomy_decision_pass_seconds_count",
            "octomy_status_writes_total{result=\"written\"}",
            "octomy_jobs{class=\"Guaranteed\",phase=\"Admitted\",reason=\"Admitted\"}");
    assertThat(
            pod.getSpec().getContainers().get(0).getResources() == null
                || pod.getSpec().getContainers().get(0).getResources().getLimits() == null
                || pod.getSpec().getContainers().get(0).getResources().getLimits().isEmpty())
        .isTrue();
  }

  @Test
  void everyWaitingReasonReachesTheStatus() throws Exception {
    aNode("n1").capacity(CPU, 4000).heartbeat(clock.instant()).create(client);
    startController(
        new Policy(
            Policy.defaults().modes(),
            Policy.defaults().priority(),
            Map.of("sim", new GroupPolicy(1)),
            Map.of("budgeted", Map.of(CPU, 1500L)),
            Duration.ofSeconds(60)));
    aJob("holder").cpu(1000).locks("subject/ernie").group("sim").create(client);
    awaitReason("holder", "Admitted");

    aJob("locked").cpu(100).locks("subject/ernie").create(client);
    aJob("grouped").cpu(100).group("sim").create(client);
    aJob("big").cpu(3500).create(client);
    aJob("huge").cpu(9000).create(client);
    aJob("child").after("nobody-yet").create(client);
    aJob("bad").request("cfd-cores", 4).create(client);
    aJob("loop-a").after("loop-b").create(client);
    aJob("loop-b").after("loop-a").create(client);
    aJob("b1").namespace("budgeted").cpu(1000).create(client);
    awaitReason("locked", "WaitingForLock");
    assertThat(status("locked").getWaitingOn())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.getKey()).isEqualTo("subject/ernie");
              assertThat(w.getJob()).isEqualTo("holder");
            });
    awaitReason("grouped", "WaitingForGroup");
    awaitReason("big", "WaitingForCapacity");
    assertThat(status("big").getMessage()).contains("3500", "n1");
    awaitReason("huge", "NoNodeFits");
    awaitReason("child", "WaitingForDependency");
    awaitReason("bad", "InvalidSpec");
    assertThat(status("bad").getPhase()).isEqualTo(JobPhase.Rejected);
    assertThat(status("bad").getMessage()).contains("write it as example.com/cfd-cores");
    awaitReason("loop-a", "DependencyCycle");
    Eventually.until(
        WAIT,
        "b1 admitted",
        () ->
            status("b1") != null && "Admitted".equals(status("b1").getReason())
                || client
                        .resources(BatchJob.class)
                        .inNamespace("budgeted")
                        .withName("b1")
                        .get()
                        .getStatus()
                    != null);
    aJob("b2").namespace("budgeted").cpu(1000).create(client);
    Eventually.until(
        WAIT,
        "b2 waiting for budget",
        () -> {
          BatchJob b2 =
              client.resources(BatchJob.class).inNamespace("budgeted").withName("b2").get();
          return b2.getStatus() != null && "WaitingForBudget".equals(b2.getStatus().getReason());
        });
  }

  @Test
  void aFinishedPodReleasesCapacityAndTheNextJobIsAdmitted() throws Exception {
    aNode("n1").capacity(CPU, 2000).heartbeat(clock.instant()).create(client);
    startController(Policy.defaults());
    aJob("first").cpu(2000).create(client);
    awaitReason("first", "Admitted");
    aJob("second").cpu(2000).create(client);
    awaitReason("second", "WaitingForCapacity");
    aJob("after-first").after("first").create(client);
    Eventually.until(WAIT, "the pod of first", () -> podOf("first") != null);

    finishPod("first", "Succeeded", 0);
    awaitReason("first", "Succeeded");
    assertThat(status("first").getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(status("first").getExitCode()).isZero();
    awaitReason("second", "Admitted");
    awaitReason("after-first", "Admitted");
  }

  @Test
  void aFailedJobSkipsItsDependantsTransitively() throws Exception {
    aNode("n1").capacity(CPU, 8000).heartbeat(clock.instant()).create(client);
    startController(Policy.defaults());
    aJob("root").cpu(1000).create(client);
    aJob("mid").cpu(1000).after("root").create(client);
    aJob("leaf").after("mid").create(client);
    awaitReason("root", "Admitted");
    Eventually.until(WAIT, "the pod of root", () -> podOf("root") != null);
    finishPod("root", "Failed", 2);
    awaitReason("root", "Failed");
    awaitReason("mid", "DependencyFailed");
    awaitReason("leaf", "DependencyFailed");
    assertThat(status("leaf").getPhase()).isEqualTo(JobPhase.Skipped);
    assertThat(status("leaf").getMessage()).contains("root");
  }

  @Test
  void waitingQueueIsNotRewrittenWhileItAges() throws Exception {
    aNode("n1").capacity(CPU, 1000).heartbeat(clock.instant()).create(client);
    // The clock jumps 50 s at a time; with the default 60 s timeout, one heartbeat the cache has
    // not caught up with yet would make the node look silent and change every decision.
    startController(patientPolicy());
    aJob("blocker").cpu(1000).create(client);
    awaitReason("blocker", "Admitted");
    for (int i = 0; i < 1000; i++) {
      aJob("w" + i).cpu(500).create(client);
    }
    Eventually.until(
        Duration.ofSeconds(60),
        "1000 waiting statuses",
        () ->
            client.resources(BatchJob.class).inNamespace("default").list().getItems().stream()
                    .filter(
                        j ->
                            j.getStatus() != null
                                && "WaitingForCapacity".equals(j.getStatus().getReason()))
                    .count()
                == 1000);
    // Let in-flight writes settle, then age the queue for several ticks; the node's agent keeps
    // reporting meanwhile (its heartbeat is the only write expected).
    controller.loop().runPass();
    drainRequests();
    for (int tick = 0; tick < 5; tick++) {
      clock.advance(Duration.ofSeconds(50));
      heartbeat("n1");
      controller.loop().runPass();
    }
    long requests =
        drainRequests().stream()
            .filter(r -> r.getPath().contains("/batchjobs") && !r.getMethod().equals("GET"))
            .count();
    assertThat(requests)
        .as("BatchJob writes while 1,000 jobs aged for 250 s with no decision changing")
        .isZero();
    assertThat(controller.loop().runPass().decided()).isEqualTo(1000);
  }

  @Test
  void aRestartedControllerResumesWithoutDoubleBooking() throws Exception {
    Map<String, Long> cap = Map.of("n1", 4000L, "n2", 4000L, "n3", 3000L);
    cap.forEach((n, c) -> aNode(n).capacity(CPU, c).heartbeat(clock.instant()).create(client));
    Policy policy =
        new Policy(
            Policy.defaults().modes(),
            Policy.defaults().priority(),
            Map.of("g1", new GroupPolicy(2)),
            Map.of(),
            Duration.ofHours(1));
    try (InvariantWatcher watcher = new InvariantWatcher(client, cap, Map.of("g1", 2))) {
      for (int i = 0; i < 40; i++) {
        var b = aJob("j" + i).cpu(1000 + (i % 3) * 500L);
        if (i % 4 == 0) {
          b.locks("subject/s" + (i % 3));
        }
        if (i % 5 == 0) {
          b.group("g1");
        }
        b.create(client);
      }
      startController(policy);
      Eventually.until(WAIT, "some admissions", () -> countPhase(JobPhase.Admitted) >= 4);
      controller.close(); // stopped mid-stream
      controller = null;
      for (int round = 0; round < 2; round++) {
        finishAllRunningPods();
      }
      startController(policy);
      Eventually.until(
          Duration.ofSeconds(90),
          "every job to finish",
          () -> {
            finishAllRunningPods();
            return countPhase(JobPhase.Succeeded) == 40;
          });
      assertThat(watcher.violations()).isEmpty();
      // One Pod per job, never two.
      assertThat(client.pods().inNamespace("default").list().getItems()).hasSize(40);
    }
  }

  @Test
  void conflictingWritersConvergeWithNothingLost() throws Exception {
    aNode("n1").capacity(CPU, 3000).heartbeat(clock.instant()).create(client);
    startController(Policy.defaults());
    for (int i = 0; i < 30; i++) {
      aJob("c" + i).cpu(1000).create(client);
    }
    // Another writer keeps changing the jobs' labels (a new resourceVersion each time), so some of
    // the controller's conditional status writes are refused with 409.
    Thread competitor =
        new Thread(
            () -> {
              for (int round = 0; round < 20 && !Thread.currentThread().isInterrupted(); round++) {
                for (int i = 0; i < 30; i++) {
                  try {
                    client
                        .resources(BatchJob.class)
                        .inNamespace("default")
                        .withName("c" + i)
                        .edit(
                            j -> {
                              j.getMetadata()
                                  .setLabels(
                                      Map.of("touched", String.valueOf(System.nanoTime() % 1000)));
                              return j;
                            });
                  } catch (RuntimeException ignored) {
                    // a conflict with the controller: fine, try the next one
                  }
                }
              }
            });
    competitor.start();
    competitor.join(60_000);
    Eventually.until(
        WAIT,
        "three admitted, the rest waiting",
        () ->
            countPhase(JobPhase.Admitted) == 3
                && client
                        .resources(BatchJob.class)
                        .inNamespace("default")
                        .list()
                        .getItems()
                        .stream()
                        .filter(
                            j ->
                                j.getStatus() != null
                                    && "WaitingForCapacity".equals(j.getStatus().getReason()))
                        .count()
                    == 27);
    assertThat(client.resources(BatchJob.class).inNamespace("default").list().getItems())
        .allSatisfy(j -> assertThat(j.getMetadata().getLabels()).containsKey("touched"));
  }

  @Test
  void invalidJobsAreRejectedAndValidOnesStillAdmitted() throws Exception {
    aNode("n1").capacity(CPU, 8000).heartbeat(clock.instant()).create(client);
    startController(Policy.defaults());
    aJob("bad-name").request("cores", 1).create(client);
    aJob("bad-limit").request(CPU, 2000).limit(CPU, 1000).create(client);
    aJob("good").cpu(1000).create(client);
    awaitReason("bad-name", "InvalidSpec");
    awaitReason("bad-limit", "InvalidSpec");
    awaitReason("good", "Admitted");
    assertThat(status("bad-limit").getMessage()).contains("above its limit 1000");
    // Fixing the manifest is enough: the edited job is considered again.
    client
        .resources(BatchJob.class)
        .inNamespace("default")
        .withName("bad-name")
        .edit(
            j -> {
              j.getSpec().getResources().setRequests(Map.of(CPU, 500L));
              return j;
            });
    awaitReason("bad-name", "Admitted");
  }

  private long countPhase(JobPhase phase) {
    return client.resources(BatchJob.class).inNamespace("default").list().getItems().stream()
        .filter(j -> j.getStatus() != null && j.getStatus().getPhase() == phase)
        .count();
  }

  private void finishAllRunningPods() {
    for (Pod p : client.pods().inNamespace("default").list().getItems()) {
      if (p.getStatus() == null || p.getStatus().getPhase() == null) {
        String job = p.getMetadata().getLabels().get(Labels.JOB);
        finishPod(job, "Succeeded", 0);
      }
    }
  }

  /** Plays a Process node's agent: reports a finished run of a job with its measured peak. */
  private void reportRun(
      String node, BatchJob job, JobPhase phase, int exitCode, Map<String, Long> peak) {
    var n = client.resources(BatchNode.class).withName(node).get();
    var entry = new NodeJob();
    entry.setNamespace("default");
    entry.setName(job.getMetadata().getName());
    entry.setUid(job.getMetadata().getUid());
    entry.setPhase(phase);
    entry.setExitCode(exitCode);
    entry.setStartedAt(Times.format(clock.instant()));
    entry.setFinishedAt(Times.format(clock.instant().plusSeconds(30)));
    entry.setUsage(peak);
    List<NodeJob> jobs =
        new ArrayList<>(n.getStatus().getJobs() == null ? List.of() : n.getStatus().getJobs());
    jobs.add(entry);
    n.getStatus().setJobs(jobs);
    n.getStatus().setHeartbeatTime(Times.format(clock.instant()));
    client.resources(BatchNode.class).resource(n).updateStatus();
  }

  @Test
  void overDeclaredRunsShowUpAsWasteInTheProfile() throws Exception {
    aNode("ws-1")
        .executor(Executor.Process)
        .capacity(CPU, 16000)
        .heartbeat(clock.instant())
        .create(client);
    startController(Policy.defaults());
    for (int run = 0; run < 4; run++) {
      String name = "export-" + run;
      aJob(name).type("mesh-export").cpu(4000).create(client);
      awaitReason(name, "Admitted");
      BatchJob j = client.resources(BatchJob.class).inNamespace("default").withName(name).get();
      reportRun("ws-1", j, JobPhase.Succeeded, 0, Map.of(CPU, 1000L + run * 10));
      awaitReason(name, "Succeeded");
    }
    Eventually.until(
        WAIT,
        "a profile with 4 runs",
        () -> {
          var p =
              client
                  .resources(BatchJobProfile.class)
                  .inNamespace("default")
                  .withName("mesh-export")
                  .get();
          return p != null
              && p.getStatus() != null
              && Long.valueOf(4).equals(p.getStatus().getRuns());
        });
    var drift =
        client
            .resources(BatchJobProfile.class)
            .inNamespace("default")
            .withName("mesh-export")
            .get()
            .getStatus()
            .getResources()
            .get(CPU);
    assertThat(drift.getRequested()).isEqualTo(4000);
    assertThat(drift.getWaste()).isBetween(0.70, 0.76);
    assertThat(drift.getSuggestedRequest()).isBetween(1000L, 1200L);
    assertThat(status("export-0").getUsage()).containsEntry(CPU, 1000L);
  }

  @Test
  void aPeakAboveItsLimitIsReportedNotKilled() throws Exception {
    aNode("ws-1")
        .executor(Executor.Process)
        .capacity(CPU, 16000)
        .heartbeat(clock.instant())
        .create(client);
    startController(Policy.defaults());
    aJob("greedy").request(CPU, 500).limit(CPU, 800).create(client);
    awaitReason("greedy", "Admitted");
    BatchJob j = client.resources(BatchJob.class).inNamespace("default").withName("greedy").get();
    reportRun("ws-1", j, JobPhase.Succeeded, 0, Map.of(CPU, 1900L));
    awaitReason("greedy", "Succeeded");
    assertThat(status("greedy").getOverLimit()).containsExactly(CPU);
    assertThat(Conditions.isTrue(status("greedy").getConditions(), ConditionTypes.OVER_LIMIT))
        .isTrue();
    Eventually.until(
        WAIT,
        "one OverLimit event",
        () ->
            client.v1().events().inNamespace("default").list().getItems().stream()
                    .filter(e -> "OverLimit".equals(e.getReason()))
                    .count()
                == 1);
  }

  @Test
  void aStarvingJobHoldsBackSmallerOnesWhereItWouldFit() throws Exception {
    aNode("n1").capacity(CPU, 4000).heartbeat(clock.instant()).create(client);
    startController(
        patientPolicy()); // the clock jumps 2 h: the node must not look silent meanwhile
    aJob("blocker").cpu(2000).create(client);
    awaitReason("blocker", "Admitted");
    aJob("big").cpu(4000).create(client);
    awaitReason("big", "WaitingForCapacity");

    // Two hours later big is starving; a small job that would fit in the free half is held back.
    clock.advance(Duration.ofHours(2));
    heartbeat("n1");
    aJob("small").cpu(1000).create(client);
    awaitReason("small", "HeldForStarvingJob");
    assertThat(status("small").getMessage()).contains("big");
    Eventually.until(
        WAIT,
        "big marked Starving",
        () -> Conditions.isTrue(status("big").getConditions(), ConditionTypes.STARVING));
    // (small counts as starving too: the API server stamps creation with real time, the
    // controller's clock is 2 h ahead.)
    Eventually.until(
        WAIT,
        "one Starving event for big",
        () ->
            client.v1().events().inNamespace("default").list().getItems().stream()
                    .filter(
                        e ->
                            "Starving".equals(e.getReason())
                                && "big".equals(e.getInvolvedObject().getName()))
                    .count()
                == 1);

    // When the blocker finishes, the big job goes first.
    Eventually.until(WAIT, "the pod of blocker", () -> podOf("blocker") != null);
    finishPod("blocker", "Succeeded", 0);
    awaitReason("big", "Admitted");
    assertThat(Conditions.isTrue(status("big").getConditions(), ConditionTypes.STARVING)).isFalse();
  }

  @Test
  void aNodeWhoseAgentFallsSilentIsMarkedReadyUnknownOnceAndRecovers() throws Exception {
    aNode("n1").capacity(CPU, 4000).heartbeat(clock.instant()).create(client);
    aNode("n2").capacity(CPU, 4000).heartbeat(clock.instant()).create(client);
    startController(Policy.defaults());
    aJob("a").cpu(1000).create(client);
    awaitReason("a", "Admitted");

    // n1's agent stops; n2's keeps reporting. n2's report is stamped with the time after the
    // jump and seen before it, so no pass can catch n2 between the jump and its report.
    Duration jump = Policy.defaults().nodeHeartbeatTimeout().plusSeconds(10);
    Instant later = clock.instant().plus(jump);
    heartbeat("n2", later);
    Eventually.until(
        WAIT,
        "the controller's cache to see n2's report",
        () ->
            controller.loop().view().nodes().stream()
                .anyMatch(
                    n ->
                        n.getMetadata().getName().equals("n2")
                            && Times.format(later).equals(n.getStatus().getHeartbeatTime())));
    clock.advance(jump);
    Eventually.until(
        WAIT, "n1 marked Ready=Unknown", () -> "Unknown".equals(readyOf("n1").getStatus()));
    var marked = readyOf("n1");
    assertThat(marked.getReason()).isEqualTo(NodeLiveness.REASON_NOT_REPORTING);
    long timeout = Policy.defaults().nodeHeartbeatTimeout().toSeconds();
    assertThat(marked.getMessage())
        .startsWith(
            "no heartbeat from the agent for "
                + (timeout + 10)
                + " s (the timeout is "
                + timeout
                + " s)");
    assertThat(readyOf("n2").getStatus()).isEqualTo("True");
    var n1 = client.resources(BatchNode.class).withName("n1").get();
    assertThat(n1.getStatus().getCapacity())
        .as("only the condition changes")
        .containsEntry(CPU, 4000L);
    String version = n1.getMetadata().getResourceVersion();
    controller.loop().runPass();
    controller.loop().runPass();
    assertThat(
            client
                .resources(BatchNode.class)
                .withName("n1")
                .get()
                .getMetadata()
                .getResourceVersion())
        .as("a marked node is not written again")
        .isEqualTo(version);

    // The agent comes back: its report sets Ready again, and the controller leaves it so.
    heartbeat("n1");
    controller.loop().runPass();
    assertThat(readyOf("n1").getStatus()).isEqualTo("True");
  }
}
