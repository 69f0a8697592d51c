package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.CPU;
import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.EndedRun;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A gang's run through the admission loop, against a fake cluster whose agent reports and Pod
 * phases the test writes: it runs once every replica started, succeeds when all exit 0, fails (or
 * retries as a whole) when one fails, and its Pods are one per replica. Each gang starts as the
 * decision leaves it: Admitted, with a node per replica in {@code status.replicaNodes}.
 */
class GangRunLoopTest {

  private final AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();

  @AfterEach
  void close() {
    h.loop.close();
  }

  @Test
  void aGangRunsOnceEveryReplicaStartedAndSucceedsWhenAllExitZero() {
    twoProcessNodes();
    admittedGang("solver", Executor.Process, "n1", "n2");
    h.cluster.report("n1", entry("solver", 1, 0, JobPhase.Running));
    h.pass();
    assertThat(status().getPhase()).as("replica 1 has not started").isEqualTo(JobPhase.Admitted);

    h.clock.advance(Duration.ofSeconds(2));
    NodeJob second = entry("solver", 1, 1, JobPhase.Running);
    second.setStartedAt(Times.format(h.clock.instant()));
    h.cluster.report("n2", second);
    h.pass();
    BatchJobStatus s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Running);
    assertThat(s.getStartedAt())
        .as("it runs from when its last replica started")
        .isEqualTo(second.getStartedAt());
    assertThat(s.getMessage()).contains("nodes n1, n2");

    NodeJob firstDone = entry("solver", 1, 0, JobPhase.Succeeded);
    firstDone.setExitCode(0);
    firstDone.setUsage(Map.of(CPU, 700L));
    h.cluster.report("n1", firstDone);
    h.pass();
    assertThat(status().getPhase()).as("replica 1 still runs").isEqualTo(JobPhase.Running);

    NodeJob secondDone = entry("solver", 1, 1, JobPhase.Succeeded);
    secondDone.setExitCode(0);
    secondDone.setUsage(Map.of(CPU, 900L));
    h.cluster.report("n2", secondDone);
    h.pass();
    s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(s.getExitCode()).isZero();
    assertThat(s.getUsage()).as("the largest replica's peak").containsEntry(CPU, 900L);
  }

  @Test
  void aReplicaThatExitsNonZeroFailsTheGangAndItsProcessNodeSeesItEnded() {
    twoProcessNodes();
    admittedGang("solver", Executor.Process, "n1", "n2");
    h.cluster.report("n1", entry("solver", 1, 0, JobPhase.Running));
    h.cluster.report("n2", entry("solver", 1, 1, JobPhase.Running));
    h.pass();
    NodeJob failed = entry("solver", 1, 1, JobPhase.Failed);
    failed.setExitCode(1);
    failed.setReason("Failed");
    h.cluster.report("n2", failed);
    h.pass();
    BatchJobStatus s = status();
    // Failed is what tells the agent of n1 to stop replica 0 (a run whose job ended).
    assertThat(s.getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(s.getExitCode()).isEqualTo(1);
    assertThat(s.getFailedRuns()).isEqualTo(1);
    assertThat(s.getMessage())
        .contains("Replica 1 of 2 (node n2) exited with code 1")
        .contains("its other replicas are stopped");
  }

  @Test
  void aFailedReplicaWithinTheBackoffLimitRetriesTheWholeGangKeepingItsPlace() {
    twoProcessNodes();
    BatchJob job = admittedGang("solver", Executor.Process, "n1", "n2");
    String queuedAt = job.getStatus().getQueuedAt();
    h.cluster.editSpec("solver", spec -> spec.setBackoffLimit(1));
    h.cluster.report("n1", entry("solver", 1, 0, JobPhase.Running));
    NodeJob failed = entry("solver", 1, 1, JobPhase.Failed);
    failed.setExitCode(2);
    failed.setReason("Failed");
    h.cluster.report("n2", failed);
    h.pass();
    BatchJobStatus s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(s.getReason()).isEqualTo("BackingOff");
    assertThat(s.getRun()).as("a new run, every replica again").isEqualTo(2);
    assertThat(s.getFailedRuns()).isEqualTo(1);
    assertThat(s.getNode()).isNull();
    assertThat(s.getReplicaNodes()).as("the next run gets a new decision").isNull();
    assertThat(s.getQueuedAt()).isEqualTo(queuedAt);
    EndedRun first = s.getRuns().get(0);
    assertThat(first.getExitCode()).isEqualTo(2);
    assertThat(first.getCounted()).isTrue();

    h.pass();
    h.clock.advance(Duration.ofSeconds(10)); // the first back-off
    h.pass();
    s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(s.getRun()).isEqualTo(2);
    assertThat(s.getReplicaNodes()).as("decided again as a whole gang").hasSize(2);
  }

  @Test
  void aReplicaLostWithItsAgentRetriesTheGangWithoutCounting() {
    twoProcessNodes();
    admittedGang("solver", Executor.Process, "n1", "n2");
    h.cluster.editSpec("solver", spec -> spec.setBackoffLimit(1));
    h.cluster.report("n1", entry("solver", 1, 0, JobPhase.Running));
    NodeJob lost = entry("solver", 1, 1, JobPhase.Failed);
    lost.setReason(NodeJob.REASON_AGENT_LOST);
    h.cluster.report("n2", lost);
    h.pass();
    BatchJobStatus s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(s.getReason()).isEqualTo(StatusComposer.REASON_RUN_LOST);
    assertThat(s.getFailedRuns()).isNull();
    assertThat(s.getRuns().get(0).getCounted()).isFalse();
    assertThat(s.getRun()).isEqualTo(2);
  }

  @Test
  void aGangOnPodNodesHasOnePodPerReplicaAndAFailureDeletesTheOthers() {
    h.cluster.add(h.readyNode("p1", 4000, Executor.Pod));
    h.cluster.add(h.readyNode("p2", 4000, Executor.Pod));
    admittedGang("mesh", Executor.Pod, "p1", "p2", "p2");
    h.pass();
    assertThat(h.cluster.podNames()).containsExactly("mesh#0", "mesh#1", "mesh#2");
    Pod second = h.cluster.pod("mesh#1");
    assertThat(second.getMetadata().getName()).isEqualTo("mesh-uidmesh-1");
    assertThat(second.getSpec().getNodeName()).isEqualTo("p2");
    assertThat(second.getSpec().getContainers().get(0).getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .startsWith(
            org.assertj.core.groups.Tuple.tuple("OCTOMY_REPLICA_INDEX", "1"),
            org.assertj.core.groups.Tuple.tuple("OCTOMY_REPLICA_COUNT", "3"),
            org.assertj.core.groups.Tuple.tuple("OCTOMY_REPLICA_NODES", "p1,p2,p2"));
    assertThat(h.cluster.pod("mesh#0").getSpec().getNodeName()).isEqualTo("p1");

    h.cluster.podPhase("mesh#0", "Running");
    h.cluster.podPhase("mesh#1", "Running");
    h.pass();
    assertThat(status("mesh").getPhase()).isEqualTo(JobPhase.Admitted);
    h.cluster.podPhase("mesh#2", "Running");
    h.pass();
    assertThat(status("mesh").getPhase()).isEqualTo(JobPhase.Running);

    h.cluster.podExited("mesh#2", 3);
    h.pass();
    assertThat(status("mesh").getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(status("mesh").getExitCode()).isEqualTo(3);
    h.pass();
    assertThat(h.cluster.podsDeleted())
        .as("the replicas left running are stopped; the one that ended is kept to read")
        .containsExactlyInAnyOrder("mesh#0", "mesh#1");
  }

  @Test
  void aGangMayMixProcessAndPodNodes() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(h.readyNode("p2", 4000, Executor.Pod));
    admittedGang("mixed", Executor.Process, "n1", "p2");
    h.pass();
    assertThat(h.cluster.podNames()).as("only the Pod node's replica").containsExactly("mixed#1");
    h.cluster.report("n1", entry("mixed", 1, 0, JobPhase.Running));
    h.cluster.podPhase("mixed#1", "Running");
    h.pass();
    assertThat(status("mixed").getPhase()).isEqualTo(JobPhase.Running);
    NodeJob done = entry("mixed", 1, 0, JobPhase.Succeeded);
    done.setExitCode(0);
    h.cluster.report("n1", done);
    h.cluster.podExited("mixed#1", 0);
    h.pass();
    assertThat(status("mixed").getPhase()).isEqualTo(JobPhase.Succeeded);
  }

  @Test
  void aDeletedGangHoldsItsPlaceUntilEveryReplicaIsStopped() {
    twoProcessNodes();
    BatchJob job = aJob("solver").cpu(1000).build();
    job.getMetadata().setFinalizers(List.of(Finalizers.RESERVATION));
    admittedGang(job, Executor.Process, "n1", "n2");
    h.cluster.report("n1", entry("solver", 1, 0, JobPhase.Running));
    h.cluster.report("n2", entry("solver", 1, 1, JobPhase.Running));
    h.pass();
    h.cluster.delete("solver");
    NodeJob stopped = entry("solver", 1, 1, JobPhase.Failed);
    stopped.setReason(NodeJob.REASON_STOPPED);
    h.cluster.report("n2", stopped);
    h.pass();
    assertThat(h.cluster.job("solver"))
        .as("replica 0 still runs on n1: the job keeps its place")
        .isNotNull();
    assertThat(status().getPhase()).isEqualTo(JobPhase.Running);
    NodeJob alsoStopped = entry("solver", 1, 0, JobPhase.Failed);
    alsoStopped.setReason(NodeJob.REASON_STOPPED);
    h.cluster.report("n1", alsoStopped);
    h.pass();
    h.pass();
    assertThat(h.cluster.job("solver")).as("every replica stopped: the job goes").isNull();
  }

  private void twoProcessNodes() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(h.readyNode("n2", 4000, Executor.Process));
  }

  /** A gang of one replica per node given, as its decision leaves it: Admitted, placed. */
  private BatchJob admittedGang(String name, Executor executor, String... nodes) {
    return admittedGang(aJob(name).cpu(1000).build(), executor, nodes);
  }

  private BatchJob admittedGang(BatchJob job, Executor executor, String... nodes) {
    String name = job.getMetadata().getName();
    job.getSpec().setReplicas(nodes.length);
    BatchJobStatus s =
        StatusComposer.decided(
                job,
                new Decision.Admit(nodes[0], NodeMode.Drone, 0, false),
                null,
                executor,
                h.clock.instant())
            .status();
    s.setReplicaNodes(List.of(nodes));
    job.setStatus(s);
    h.cluster.add(job);
    return h.cluster.job(name);
  }

  /** The entry an agent reports for one replica of one run. */
  private static NodeJob entry(String name, int run, int replica, JobPhase phase) {
    NodeJob j = new NodeJob();
    j.setNamespace("default");
    j.setName(name);
    j.setUid("uid-" + name);
    j.setRun(run == 1 ? null : run);
    j.setReplica(replica == 0 ? null : replica);
    j.setPhase(phase);
    j.setStartedAt("2026-01-01T00:00:00Z");
    return j;
  }

  private BatchJobStatus status() {
    return status("solver");
  }

  private BatchJobStatus status(String name) {
    return h.cluster.job(name).getStatus();
  }
}
