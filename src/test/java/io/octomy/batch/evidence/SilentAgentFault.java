package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.Resources;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.controller.NodeLiveness;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import io.octomy.batch.vocabulary.Times;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * (e) A node whose agent stops heartbeating. Two Process nodes, "silent" and "alive"; two jobs run
 * on "silent" (its agent reports them Running). Then its agent goes quiet. Probe jobs that only
 * "silent" could hold (it alone offers example.com/su2-processes) arrive every 250 ms: the ones
 * after the timeout must wait with NoNodeFits. Ordinary jobs go to "alive". The two running jobs
 * must be left exactly as they were.
 */
final class SilentAgentFault {

  record Result(
      Duration timeout,
      double notReadyAfterSeconds,
      int probesAdmittedBefore,
      int probesWaiting,
      int admissionsToSilentAfterExpiry,
      int ordinaryOnAlive,
      int ordinaryOnSilent,
      boolean runningUntouched,
      String probeMessage,
      String silentReady,
      long markedAfterSeconds,
      String aliveReady) {
    boolean passed() {
      return admissionsToSilentAfterExpiry == 0
          && ordinaryOnSilent == 0
          && runningUntouched
          && probesWaiting > 0
          && ("Unknown/" + NodeLiveness.REASON_NOT_REPORTING).equals(silentReady)
          && aliveReady.startsWith("True/")
          // Condition times are whole seconds.
          && markedAfterSeconds >= timeout.toSeconds() - 1
          // A probe created up to one probe interval (250 ms) plus the pass delay before expiry
          // may be decided after it, so "not ready" is measured up to 0.5 s early.
          && notReadyAfterSeconds >= timeout.toMillis() / 1000.0 - 0.5;
    }

    @Override
    public String toString() {
      return String.format(
          "silent agent: heartbeat timeout %d s; treated as not ready %.1f s after its last heartbeat"
              + " (first probe answered NoNodeFits); probes admitted there before that %d, waiting after %d, admissions there"
              + " after the timeout %d; ordinary jobs on alive %d, on silent %d; running jobs untouched %s; probe message: \"%s\";"
              + " silent node's Ready %s, written %d s after its last heartbeat; alive node's Ready %s",
          timeout.toSeconds(),
          notReadyAfterSeconds,
          probesAdmittedBefore,
          probesWaiting,
          admissionsToSilentAfterExpiry,
          ordinaryOnAlive,
          ordinaryOnSilent,
          runningUntouched,
          probeMessage,
          silentReady,
          markedAfterSeconds,
          aliveReady);
    }
  }

  private SilentAgentFault() {}

  static Result run(Path work, Duration timeout) throws Exception {
    Policy policy =
        new Policy(ModeTable.defaults(), PriorityPolicy.defaults(), Map.of(), Map.of(), timeout);
    try (Cluster c = new Cluster(work.resolve("state"));
        KubernetesClient ctlClient =
            new KubernetesClientBuilder().withConfig(c.server.clientConfig()).build()) {
      KubernetesClient k = c.client;
      AtomicBoolean silentBeats = new AtomicBoolean(true);
      AtomicBoolean aliveBeats = new AtomicBoolean(false);
      node(k, "silent", Map.of(Workload.CPU, 4000L, Workload.SU2, 16L));
      Thread beats =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  try {
                    if (silentBeats.get()) {
                      beat(k, "silent");
                    }
                    if (aliveBeats.get()) {
                      beat(k, "alive");
                    }
                    Thread.sleep(500);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      beats.setDaemon(true);
      beats.start();
      BatchController controller =
          BatchController.start(
              ctlClient,
              new BatchController.ControllerOptions(
                  policy,
                  false,
                  "default",
                  "127.0.0.1",
                  -1,
                  new AdmissionLoop.Settings(
                      Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(30), 8)),
              Clock.systemUTC());
      try {
        List<BatchJob> running = new ArrayList<>();
        for (String name : List.of("run-1", "run-2")) {
          job(k, name, Map.of(Workload.CPU, 2000L));
        }
        for (String name : List.of("run-1", "run-2")) {
          running.add(await(k, name, JobPhase.Admitted));
        }
        // The agent starts them and reports them Running.
        BatchNode silent = k.resources(BatchNode.class).withName("silent").get();
        List<NodeJob> reported = new ArrayList<>();
        for (BatchJob j : running) {
          NodeJob nj = new NodeJob();
          nj.setNamespace("default");
          nj.setName(j.getMetadata().getName());
          nj.setUid(j.getMetadata().getUid());
          nj.setPhase(JobPhase.Running);
          nj.setStartedAt(Times.format(Instant.now()));
          reported.add(nj);
        }
        silent.getStatus().setJobs(reported);
        k.resources(BatchNode.class).resource(silent).updateStatus();
        List<BatchJob> runningNow = new ArrayList<>();
        for (String name : List.of("run-1", "run-2")) {
          runningNow.add(await(k, name, JobPhase.Running));
        }
        node(k, "alive", Map.of(Workload.CPU, 4000L));
        aliveBeats.set(true);
        Thread.sleep(600);

        // The agent of "silent" goes quiet.
        silentBeats.set(false);
        Thread.sleep(100);
        Instant lastBeat =
            Times.parse(
                k.resources(BatchNode.class)
                    .withName("silent")
                    .get()
                    .getStatus()
                    .getHeartbeatTime());
        long stop = System.nanoTime();
        Instant stopAt = Instant.now();
        List<String> probes = new ArrayList<>();
        List<Long> probeCreated = new ArrayList<>();
        while (System.nanoTime() - stop < timeout.multipliedBy(3).toNanos()) {
          String name = "probe-" + probes.size();
          job(k, name, Map.of(Workload.SU2, 1L));
          probes.add(name);
          probeCreated.add(System.nanoTime());
          Thread.sleep(250);
        }
        for (String name : List.of("new-1", "new-2", "new-3")) {
          job(k, name, Map.of(Workload.CPU, 1500L));
        }
        Thread.sleep(3000);
        int before = 0;
        int waiting = 0;
        int afterExpiry = 0;
        double notReady = Double.NaN;
        String message = "";
        Instant expiry = lastBeat.plus(timeout);
        for (int i = 0; i < probes.size(); i++) {
          BatchJob p =
              k.resources(BatchJob.class).inNamespace("default").withName(probes.get(i)).get();
          var s = p.getStatus();
          if (s == null) {
            continue;
          }
          if (s.getAdmittedAt() != null) {
            before++;
            if (Times.parse(s.getAdmittedAt())
                .isAfter(expiry.plusSeconds(1))) { // 1 s: timestamps are whole seconds
              afterExpiry++;
            }
          } else if ("NoNodeFits".equals(s.getReason())) {
            waiting++;
            if (Double.isNaN(notReady)) {
              // When the first probe that found the node not ready was created (heartbeat times are
              // whole seconds).
              notReady =
                  Duration.between(lastBeat, stopAt).toMillis() / 1000.0
                      + (probeCreated.get(i) - stop) / 1e9;
              message = s.getMessage();
            }
          }
        }
        int onAlive = 0;
        int onSilent = 0;
        for (String name : List.of("new-1", "new-2", "new-3")) {
          var s =
              k.resources(BatchJob.class).inNamespace("default").withName(name).get().getStatus();
          if (s != null && "alive".equals(s.getNode())) {
            onAlive++;
          }
          if (s != null && "silent".equals(s.getNode())) {
            onSilent++;
          }
        }
        boolean untouched = true;
        for (BatchJob j : runningNow) {
          BatchJob again =
              k.resources(BatchJob.class)
                  .inNamespace("default")
                  .withName(j.getMetadata().getName())
                  .get();
          untouched &=
              again.getMetadata().getResourceVersion().equals(j.getMetadata().getResourceVersion())
                  && again.getStatus().getPhase() == JobPhase.Running
                  && "silent".equals(again.getStatus().getNode());
        }
        Condition silentReady = ready(k, "silent");
        Condition aliveReady = ready(k, "alive");
        long markedAfter =
            silentReady == null || silentReady.getLastTransitionTime() == null
                ? -1
                : Duration.between(lastBeat, Times.parse(silentReady.getLastTransitionTime()))
                    .toSeconds();
        return new Result(
            timeout,
            notReady,
            before,
            waiting,
            afterExpiry,
            onAlive,
            onSilent,
            untouched,
            message,
            describe(silentReady),
            markedAfter,
            describe(aliveReady));
      } finally {
        beats.interrupt();
        controller.close();
      }
    }
  }

  private static void node(KubernetesClient k, String name, Map<String, Long> capacity) {
    BatchNode n = new BatchNode();
    n.setMetadata(new ObjectMeta());
    n.getMetadata().setName(name);
    BatchNodeSpec spec = new BatchNodeSpec();
    spec.setMode(NodeMode.Drone);
    spec.setExecutor(Executor.Process);
    n.setSpec(spec);
    n = k.resources(BatchNode.class).resource(n).create();
    BatchNodeStatus s = new BatchNodeStatus();
    s.setCapacity(capacity);
    Instant now = Instant.now();
    s.setHeartbeatTime(Times.format(now));
    s.setConditions(
        Conditions.set(
            null, ConditionTypes.READY, true, "AgentReporting", "agent is reporting", null, now));
    n.setStatus(s);
    k.resources(BatchNode.class).resource(n).updateStatus();
  }

  private static Condition ready(KubernetesClient k, String node) {
    return Conditions.find(
        k.resources(BatchNode.class).withName(node).get().getStatus().getConditions(),
        ConditionTypes.READY);
  }

  private static String describe(Condition c) {
    return c == null ? "none" : c.getStatus() + "/" + c.getReason();
  }

  /** A report as an agent writes it: a new heartbeat, and Ready. */
  private static void beat(KubernetesClient k, String name) {
    try {
      BatchNode n = k.resources(BatchNode.class).withName(name).get();
      Instant now = Instant.now();
      n.getStatus().setHeartbeatTime(Times.format(now));
      n.getStatus()
          .setConditions(
              Conditions.set(
                  n.getStatus().getConditions(),
                  ConditionTypes.READY,
                  true,
                  "AgentReporting",
                  "agent is reporting",
                  null,
                  now));
      k.resources(BatchNode.class).resource(n).updateStatus();
    } catch (RuntimeException e) {
      // a lost heartbeat is what this scenario is about; the next one follows
    }
  }

  private static void job(KubernetesClient k, String name, Map<String, Long> requests) {
    BatchJob j = new Workload(1, 1, Executor.Process, 1, Duration.ofSeconds(1)).job(0);
    j.getMetadata().setName(name);
    j.getMetadata().setNamespace("default");
    j.getSpec().setAfter(null);
    j.getSpec().setLocks(null);
    j.getSpec().setGroup(null);
    j.getSpec().setOrigin(null);
    j.getSpec().setResources(new Resources(requests, requests));
    k.resources(BatchJob.class).inNamespace("default").resource(j).create();
  }

  private static BatchJob await(KubernetesClient k, String name, JobPhase phase)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      BatchJob j = k.resources(BatchJob.class).inNamespace("default").withName(name).get();
      if (j.getStatus() != null && j.getStatus().getPhase() == phase) {
        return j;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException(name + " did not reach " + phase);
  }
}
