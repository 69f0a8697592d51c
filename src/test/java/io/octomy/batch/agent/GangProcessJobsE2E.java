package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gang's replicas on a Process node, over real processes: one process per replica placed here,
 * each told its index, the count and every node; one entry per replica; kept across an agent
 * restart; stopped when the job ends while they run.
 */
class GangProcessJobsE2E {

  private static final String PRINT =
      "echo $OCTOMY_REPLICA_INDEX $OCTOMY_REPLICA_COUNT $OCTOMY_REPLICA_NODES";

  @TempDir Path state;
  private final ExecutorService stopper = Executors.newSingleThreadExecutor();
  private ProcessJobs tracker;

  @AfterEach
  void close() throws InterruptedException {
    if (tracker != null) {
      tracker.close();
    }
    stopper.shutdownNow();
    stopper.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void eachReplicaPlacedHereRunsOnceWithItsVariablesAndHasItsOwnEntry() throws Exception {
    tracker = new ProcessJobs("ws-7", new ProcessExecutor(state), stopper, () -> {});
    BatchJob gang = gang("mesh", PRINT, "ws-7", "ws-8", "ws-7");
    InformedJobs informed = InformedJobs.of(List.of(gang));

    assertThat(tracker.reconcile(informed)).isTrue();
    List<NodeJob> done = awaitReports(r -> r.size() == 2 && r.stream().allMatch(this::ended));
    assertThat(done).extracting(NodeJob::getReplica).containsExactly(null, 2);
    assertThat(done).allSatisfy(r -> assertThat(r.getPhase()).isEqualTo(JobPhase.Succeeded));
    assertThat(output(done.get(0))).isEqualTo("0 3 ws-7,ws-8,ws-7");
    assertThat(output(done.get(1))).isEqualTo("2 3 ws-7,ws-8,ws-7");
    assertThat(done.get(0).getOutput()).isNotEqualTo(done.get(1).getOutput());
    assertThat(tracker.reconcile(informed)).as("each replica started once").isFalse();
  }

  @Test
  void aJobOfOneReplicaIsToldItIsReplicaZeroOfOneOnItsNode() throws Exception {
    tracker = new ProcessJobs("ws-7", new ProcessExecutor(state), stopper, () -> {});
    BatchJob single =
        ApiFixtures.aJob("one")
            .namespace("studio")
            .uid("uid-one")
            .command("sh", "-c", PRINT)
            .placed("ws-7", JobPhase.Admitted)
            .build();
    tracker.reconcile(InformedJobs.of(List.of(single)));
    List<NodeJob> done = awaitReports(r -> r.size() == 1 && ended(r.get(0)));
    assertThat(done.get(0).getReplica()).isNull();
    assertThat(output(done.get(0))).isEqualTo("0 1 ws-7");
  }

  @Test
  void replicasAreKeptAcrossAnAgentRestart() throws Exception {
    tracker = new ProcessJobs("ws-7", new ProcessExecutor(state), stopper, () -> {});
    BatchJob gang = gang("mesh", "sleep 1; " + PRINT, "ws-7", "ws-7");
    tracker.reconcile(InformedJobs.of(List.of(gang)));
    assertThat(tracker.reports()).hasSize(2);
    tracker.close(); // the agent stops; its processes run on

    tracker = new ProcessJobs("ws-7", new ProcessExecutor(state), stopper, () -> {});
    assertThat(tracker.reconcile(InformedJobs.of(List.of(gang))))
        .as("re-adopted, not started again")
        .isFalse();
    List<NodeJob> done = awaitReports(r -> r.size() == 2 && r.stream().allMatch(this::ended));
    assertThat(done).extracting(NodeJob::getReplica).containsExactly(null, 1);
    assertThat(done).allSatisfy(r -> assertThat(r.getPhase()).isEqualTo(JobPhase.Succeeded));
    assertThat(output(done.get(1))).isEqualTo("1 2 ws-7,ws-7");
  }

  @Test
  void aReplicaStillRunningWhenItsJobEndedIsStopped() throws Exception {
    ProcessExecutor executor = new ProcessExecutor(state);
    tracker = new ProcessJobs("ws-7", executor, stopper, () -> {});
    BatchJob gang = gang("mesh", "sleep 60", "ws-8", "ws-7");
    tracker.reconcile(InformedJobs.of(List.of(gang)));
    assertThat(tracker.reports())
        .singleElement()
        .satisfies(r -> assertThat(r.getPhase()).isEqualTo(JobPhase.Running));

    // Replica 0 failed on ws-8: the controller ends the job, and this agent stops replica 1.
    gang.getStatus().setPhase(JobPhase.Failed);
    tracker.reconcile(InformedJobs.of(List.of(gang)));
    RunKey replica = new RunKey("studio", "mesh", "uid-mesh", 1, 1);
    JobRecord stopped = executor.whenFinished(replica).get(20, TimeUnit.SECONDS);
    assertThat(stopped.phase()).isEqualTo(RunPhase.Failed);
    assertThat(stopped.reason()).isEqualTo(NodeJob.REASON_STOPPED);
  }

  private static BatchJob gang(String name, String script, String... nodes) {
    BatchJob job =
        ApiFixtures.aJob(name)
            .namespace("studio")
            .uid("uid-" + name)
            .command("sh", "-c", script)
            .placed(nodes[0], JobPhase.Admitted)
            .build();
    job.getSpec().setReplicas(nodes.length);
    job.getStatus().setReplicaNodes(List.of(nodes));
    return job;
  }

  private boolean ended(NodeJob r) {
    return r.getPhase() == JobPhase.Succeeded || r.getPhase() == JobPhase.Failed;
  }

  /** The tracker's reports once they satisfy {@code done}, measuring as the agent does. */
  private List<NodeJob> awaitReports(Predicate<List<NodeJob>> done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      tracker.sample();
      List<NodeJob> reports = tracker.reports();
      if (done.test(reports) || System.nanoTime() > deadline) {
        return reports;
      }
      Thread.sleep(50);
    }
  }

  private static String output(NodeJob entry) throws IOException {
    return Files.readString(Path.of(entry.getOutput())).trim();
  }
}
