package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.controller.FakeCluster.Fault;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Deleting a job behind someone's finalizer, against the loop and an in-memory server: the job
 * keeps its place until its work is gone (its Pod deleted, or its agent reporting its process
 * ended), so a job admitted into that place never runs beside it.
 */
class DeletionLoopTest {

  private final AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();

  @AfterEach
  void close() {
    h.loop.close();
  }

  private String state(String job) {
    BatchJob j = h.cluster.job(job);
    if (j == null) {
      return "absent";
    }
    if (j.getStatus() == null || j.getStatus().getPhase() == null) {
      return "undecided";
    }
    return switch (j.getStatus().getPhase()) {
      case Admitted, Running -> j.getStatus().getPhase() + "@" + j.getStatus().getNode();
      default -> j.getStatus().getPhase() + ":" + j.getStatus().getReason();
    };
  }

  @Test
  void aRunningPodJobBeingDeletedHoldsItsPlaceUntilItsPodIsGoneAndItsPodIsDeletedAtOnce() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
    h.cluster.add(aJob("a").cpu(3000).build());
    h.pass(); // admitted
    h.pass(); // its Pod
    h.cluster.podPhase("a", "Running");
    h.pass();
    assertThat(state("a")).isEqualTo("Running@n1");

    h.cluster.deleteBehindFinalizer("a");
    h.cluster.add(aJob("b").cpu(3000).build());
    h.pass();
    assertThat(h.cluster.podsDeleted()).as("its work is stopped at once").containsExactly("a");
    assertThat(state("b"))
        .as("a's Pod was still there when this pass decided")
        .isEqualTo("Queued:WaitingForCapacity");

    h.pass(); // the Pod is gone: a ends
    assertThat(state("a")).isEqualTo("Failed:Failed");
    assertThat(h.cluster.job("a").getStatus().getMessage())
        .contains("Its Pod was deleted before it finished.");
    h.pass();
    assertThat(state("b")).isEqualTo("Admitted@n1");
  }

  @Test
  void aRunningProcessJobBeingDeletedHoldsItsPlaceUntilItsAgentReportsTheProcessEnded() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).build());
    h.pass();
    h.cluster.report("n1", run("a", JobPhase.Running, null));
    h.pass();
    assertThat(state("a")).isEqualTo("Running@n1");

    h.cluster.deleteBehindFinalizer("a");
    h.cluster.add(aJob("b").cpu(3000).build());
    h.pass();
    h.pass();
    assertThat(state("a")).as("the agent has not reported it stopped").isEqualTo("Running@n1");
    assertThat(state("b")).isEqualTo("Queued:WaitingForCapacity");
    assertThat(h.cluster.job("a").getStatus().getMessage())
        .as("the delete is seen, and what it waits for said")
        .isEqualTo(
            "deleted; waiting for the agent of node n1 to stop it and report that it ended; its"
                + " place is freed then.");
    assertThat(
            Conditions.isTrue(
                h.cluster.job("a").getStatus().getConditions(), ConditionTypes.STOP_PENDING))
        .as("its agent reports: nothing is pending on anyone")
        .isFalse();

    h.cluster.report("n1", run("a", JobPhase.Failed, 143));
    h.pass(); // a ended
    h.pass(); // b takes its place
    assertThat(state("a")).isEqualTo("Failed:Failed");
    assertThat(state("b")).isEqualTo("Admitted@n1");
  }

  @Test
  void aJobDeletedWhileItsAgentIsStoppedSaysWhatItWaitsForAndHowToEndTheWait() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).build());
    h.pass();
    h.cluster.report("n1", run("a", JobPhase.Running, null));
    h.pass();
    BatchNode n1 = h.cluster.node("n1");
    h.cluster.writeNodeConditions(
        n1,
        Conditions.set(
            n1.getStatus().getConditions(),
            ConditionTypes.READY,
            false,
            "AgentStopped",
            "the agent stopped",
            null,
            h.clock.instant()));

    h.cluster.deleteBehindFinalizer("a");
    h.pass();
    BatchJob waiting = h.cluster.job("a");
    assertThat(state("a")).as("its process may still run").isEqualTo("Running@n1");
    assertThat(waiting.getStatus().getMessage())
        .contains("waiting for the agent of node n1 to end the process")
        .contains("not ready (AgentStopped since ")
        .contains("Start that agent")
        .contains(
            "kubectl patch batchjob a -n default --type=json -p"
                + " '[{\"op\":\"test\",\"path\":\"/metadata/finalizers/0\","
                + "\"value\":\"batch.octomy.io/reservation-in-use\"},"
                + "{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]'");
    Condition pending =
        Conditions.find(waiting.getStatus().getConditions(), ConditionTypes.STOP_PENDING);
    assertThat(pending.getStatus()).isEqualTo(ConditionTypes.TRUE);
    assertThat(pending.getReason()).isEqualTo("AgentStopped");
    String version = waiting.getMetadata().getResourceVersion();
    h.clock.advance(Duration.ofMinutes(2));
    h.pass();
    h.pass();
    assertThat(h.cluster.job("a").getMetadata().getResourceVersion())
        .as("a wait that does not change is written once")
        .isEqualTo(version);

    h.cluster.heartbeat("n1", h.clock.instant());
    h.cluster.report("n1", run("a", JobPhase.Failed, 143));
    h.pass();
    assertThat(state("a")).isEqualTo("Failed:Failed");
    assertThat(
            Conditions.find(
                    h.cluster.job("a").getStatus().getConditions(), ConditionTypes.STOP_PENDING)
                .getStatus())
        .isEqualTo(ConditionTypes.FALSE);
    h.pass();
    h.pass();
    assertThat(ReservationFinalizer.on(h.cluster.job("a")))
        .as("the controller's finalizer released: the delete can complete")
        .isFalse();
  }

  @Test
  void aJobDeletedOnANodeWhoseAgentWentSilentSaysSoWithoutWaitingForTheMark() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).build());
    h.pass();
    h.cluster.report("n1", run("a", JobPhase.Running, null));
    h.pass();
    h.cluster.deleteBehindFinalizer("a");
    h.pass();
    assertThat(h.cluster.job("a").getStatus().getMessage())
        .as("the agent reports: it will end the process")
        .startsWith("deleted; waiting for the agent of node n1 to stop it");

    h.clock.advance(Duration.ofSeconds(61));
    h.pass();
    assertThat(h.cluster.job("a").getStatus().getMessage())
        .contains("not ready (AgentNotReporting; its agent last reported at");
  }

  @Test
  void aDependantSaysAtOnceThatItsDependencyWasDeletedAndAgainWhenItIsBack() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("p").cpu(5000).build());
    h.cluster.add(aJob("d").cpu(1000).after("p").build());
    h.pass();
    assertThat(state("p")).isEqualTo("Queued:NoNodeFits");
    assertThat(h.cluster.job("d").getStatus().getMessage())
        .isEqualTo("waiting for dependency: p must succeed first.");

    h.cluster.delete("p");
    h.clock.advance(Duration.ofSeconds(1));
    h.pass();
    assertThat(state("p")).isEqualTo("absent");
    assertThat(state("d")).isEqualTo("Queued:WaitingForDependency");
    assertThat(h.cluster.job("d").getStatus().getMessage())
        .as("written in the next pass, not at the next wording refresh")
        .startsWith("waiting for dependency: p does not exist in namespace default");

    h.cluster.add(aJob("p").cpu(5000).build());
    h.clock.advance(Duration.ofSeconds(1));
    h.pass();
    assertThat(h.cluster.job("d").getStatus().getMessage())
        .isEqualTo("waiting for dependency: p must succeed first.");
  }

  @Test
  void anAdmittedPodJobDeletedBeforeItsPodWasCreatedEndsWithoutAPod() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
    h.cluster.add(aJob("a").cpu(3000).build());
    h.pass(); // admitted; its Pod comes on the next pass
    h.cluster.deleteBehindFinalizer("a");
    h.cluster.add(aJob("b").cpu(3000).build());
    h.pass();
    assertThat(h.cluster.podNames()).as("a job being deleted is not started").isEmpty();
    assertThat(state("a")).isEqualTo("Failed:Failed");
    assertThat(h.cluster.job("a").getStatus().getMessage()).contains("deleted before it started");
    h.pass();
    assertThat(state("b")).isEqualTo("Admitted@n1");
  }

  @Test
  void aRunningJobOnADeletedBatchNodeEndsAfterTheHeartbeatTimeoutAndReleasesItsLock() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).locks("k").build());
    h.pass();
    h.cluster.report("n1", run("a", JobPhase.Running, null));
    h.pass();
    assertThat(state("a")).isEqualTo("Running@n1");

    h.cluster.deleteNode("n1");
    h.cluster.add(h.readyNode("n2", 4000, Executor.Process));
    h.cluster.add(aJob("c").cpu(1000).locks("k").build());
    h.pass();
    h.clock.advance(Duration.ofSeconds(59));
    h.cluster.heartbeat("n2", h.clock.instant());
    h.pass();
    assertThat(state("a")).as("within the heartbeat timeout").isEqualTo("Running@n1");
    assertThat(state("c")).isEqualTo("Queued:WaitingForLock");

    h.clock.advance(Duration.ofSeconds(1));
    h.cluster.heartbeat("n2", h.clock.instant());
    h.pass();
    assertThat(state("a")).isEqualTo("Failed:Failed");
    assertThat(h.cluster.job("a").getStatus().getMessage())
        .contains("Its BatchNode n1 was deleted and no agent re-created it within 60s");
    h.pass();
    assertThat(state("c")).isEqualTo("Admitted@n2");
  }

  @Test
  void aRestartedControllerKeepsTheDeadlineOfANodeSeenMissingBeforeIt() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).build());
    h.pass();
    h.cluster.report("n1", run("a", JobPhase.Running, null));
    h.pass();

    h.cluster.deleteNode("n1");
    h.pass(); // seen missing now: written on the job
    assertThat(
            Conditions.isTrue(
                h.cluster.job("a").getStatus().getConditions(), ConditionTypes.NODE_MISSING))
        .isTrue();
    h.clock.advance(Duration.ofSeconds(40));
    h.restart();
    h.pass();
    assertThat(state("a")).isEqualTo("Running@n1");
    h.clock.advance(Duration.ofSeconds(20)); // 60 s after it was first seen missing
    h.pass();
    assertThat(state("a"))
        .as("the deadline counts from the first sighting, not from the restart")
        .isEqualTo("Failed:Failed");
    assertThat(
            Conditions.isTrue(
                h.cluster.job("a").getStatus().getConditions(), ConditionTypes.NODE_MISSING))
        .isFalse();
  }

  @Test
  void aNodeThatComesBackInTimeClearsItsMissingMark() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).build());
    h.pass();
    h.cluster.report("n1", run("a", JobPhase.Running, null));
    h.pass();
    h.cluster.deleteNode("n1");
    h.pass();
    h.clock.advance(Duration.ofSeconds(30));
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.report("n1", run("a", JobPhase.Running, null));
    h.pass();
    h.clock.advance(Duration.ofSeconds(60));
    h.cluster.heartbeat("n1", h.clock.instant());
    h.pass();
    assertThat(state("a")).isEqualTo("Running@n1");
    assertThat(
            Conditions.find(
                    h.cluster.job("a").getStatus().getConditions(), ConditionTypes.NODE_MISSING)
                .getStatus())
        .isEqualTo(ConditionTypes.FALSE);
  }

  @Test
  void aFinishedRunWhoseDriftFoldFailsStaysUnfinishedUntilTheFoldLands() {
    ranOnN1AndSucceeded(1000);
    h.cluster.fault("profile/mesh-export", Fault.TIMEOUT_LOST);
    h.pass();
    assertThat(h.cluster.profiles()).as("the fold failed").isEmpty();
    assertThat(state("a"))
        .as("not marked finished while its run is not folded")
        .startsWith("Admitted");
    h.pass();
    assertThat(state("a")).isEqualTo("Succeeded:Succeeded");
    assertThat(h.cluster.profiles().get("default/mesh-export").runs()).isEqualTo(1);
  }

  @Test
  void aFinishedRunWhoseProfileTheServerRefusesIsFinishedWithoutItAndSaysSo() {
    // as when the BatchJobProfile CRD was deleted, or the controller may not write profiles
    ranOnN1AndSucceeded(3000);
    h.cluster.fault("profile/mesh-export", Fault.FORBIDDEN);
    h.cluster.add(aJob("b").cpu(3000).build());
    h.pass();
    assertThat(state("a")).isEqualTo("Succeeded:Succeeded");
    assertThat(h.cluster.profiles()).isEmpty();
    h.pass();
    assertThat(state("b")).as("a's place is free again").isEqualTo("Admitted@n1");
    assertThat(h.eventsOnceSent()).contains("a: " + WriteStep.DRIFT_NOT_RECORDED);
  }

  @Test
  void anUnansweredFoldHoldsTheFinishUntilFiveMinutesAfterTheRunEndedThenLetsGo() {
    ranOnN1AndSucceeded(1000); // ended at 00:01
    for (int i = 0; i < 3; i++) {
      h.cluster.fault("profile/mesh-export", Fault.TIMEOUT_LOST);
    }
    h.pass();
    h.clock.advance(Duration.ofMinutes(5)); // 00:05: within its patience
    h.cluster.heartbeat("n1", h.clock.instant());
    h.pass();
    assertThat(state("a")).startsWith("Admitted");
    h.clock.advance(Duration.ofMinutes(2)); // 00:07: past 00:01 + 5 minutes
    h.cluster.heartbeat("n1", h.clock.instant());
    h.pass();
    assertThat(state("a")).isEqualTo("Succeeded:Succeeded");
    assertThat(h.cluster.profiles()).isEmpty();
    assertThat(h.eventsOnceSent()).contains("a: " + WriteStep.DRIFT_NOT_RECORDED);
  }

  /**
   * Job "a" of type mesh-export, asking {@code cpu}, admitted to a Process node n1 of 4000, whose
   * agent then reports it ended with code 0 at 00:01 having used 800.
   */
  private void ranOnN1AndSucceeded(long cpu) {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").type("mesh-export").cpu(cpu).build());
    h.pass();
    NodeJob done = run("a", JobPhase.Succeeded, 0);
    done.setUsage(Map.of(ApiFixtures.CPU, 800L));
    h.cluster.report("n1", done);
  }

  private NodeJob run(String job, JobPhase phase, Integer exitCode) {
    NodeJob j = new NodeJob();
    j.setNamespace("default");
    j.setName(job);
    j.setUid(h.cluster.job(job).getMetadata().getUid());
    j.setPhase(phase);
    j.setExitCode(exitCode);
    j.setStartedAt("2026-01-01T00:00:00Z");
    if (phase.isFinished()) {
      j.setFinishedAt("2026-01-01T00:01:00Z");
    }
    return j;
  }
}
