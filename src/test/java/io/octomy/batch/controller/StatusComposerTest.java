package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.admission.WaitingOn;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Resources;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pure status composition: what changes, what does not, and which events a transition deserves. */
class StatusComposerTest {

  private static final String HELD =
      "lower-priority jobs are held back for it: node n1 is kept for it where it fits soonest.";

  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  private static final String CPU = "octomy.io/cpu-milli";

  private static BatchJob job(BatchJobStatus status, long generation) {
    BatchJob j = new BatchJob();
    j.setMetadata(new ObjectMeta());
    j.getMetadata().setName("a");
    j.getMetadata().setNamespace("default");
    j.getMetadata().setUid("u1");
    j.getMetadata().setGeneration(generation);
    j.getMetadata().setCreationTimestamp("2026-11-30T09:59:00Z");
    BatchJobSpec spec = new BatchJobSpec();
    spec.setResources(new Resources(Map.of(CPU, 1000L), Map.of(CPU, 2000L)));
    j.setSpec(spec);
    j.setStatus(status);
    return j;
  }

  private static Decision.Wait waitFor(Reason r, String msg, long priority) {
    return new Decision.Wait(r, msg, List.of(), priority, null);
  }

  @Test
  void firstDecisionWritesClassQueuedAtAndTheAdmittedConditionFalse() {
    var c =
        StatusComposer.decided(
            job(null, 1),
            waitFor(Reason.WaitingForCapacity, "waiting for capacity: need 1000.", 100),
            T0);
    BatchJobStatus s = c.status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(s.getServiceClass().name()).isEqualTo("Burstable");
    assertThat(s.getQueuedAt()).isEqualTo("2026-11-30T09:59:00Z");
    assertThat(s.getEffectivePriority()).isEqualTo(100);
    assertThat(s.getObservedGeneration()).isEqualTo(1);
    assertThat(Conditions.find(s.getConditions(), ConditionTypes.ADMITTED).getStatus())
        .isEqualTo("False");
    assertThat(Conditions.find(s.getConditions(), ConditionTypes.ADMITTED).getReason())
        .isEqualTo("WaitingForCapacity");
    assertThat(c.events()).isEmpty();
  }

  @Test
  void agingAloneChangesNothing() {
    BatchJobStatus first =
        StatusComposer.decided(job(null, 1), waitFor(Reason.WaitingForCapacity, "m.", 100), T0)
            .status();
    var later =
        StatusComposer.decided(
            job(first, 1),
            waitFor(Reason.WaitingForCapacity, "m.", 190),
            T0.plus(Duration.ofMinutes(9)));
    assertThat(later.status()).isEqualTo(first);
    assertThat(later.status().getEffectivePriority())
        .as("priority is written with the next real change")
        .isEqualTo(100);
  }

  @Test
  void aRealChangeCarriesTheCurrentPriorityAndKeepsTheTransitionTime() {
    BatchJobStatus first =
        StatusComposer.decided(job(null, 1), waitFor(Reason.WaitingForCapacity, "m.", 100), T0)
            .status();
    var later =
        StatusComposer.decided(
            job(first, 1),
            new Decision.Wait(
                Reason.WaitingForLock,
                "waiting for lock subject/ernie held by b.",
                List.of(new WaitingOn("subject/ernie", "b")),
                150,
                null),
            T0.plus(Duration.ofMinutes(5)));
    assertThat(later.status().getReason()).isEqualTo("WaitingForLock");
    assertThat(later.status().getEffectivePriority()).isEqualTo(150);
    assertThat(later.status().getWaitingOn())
        .singleElement()
        .satisfies(w -> assertThat(w.getJob()).isEqualTo("b"));
    // Admitted stayed False: its lastTransitionTime does not move, only reason and message do.
    assertThat(
            Conditions.find(later.status().getConditions(), ConditionTypes.ADMITTED)
                .getLastTransitionTime())
        .isEqualTo(Times.format(T0));
  }

  @Test
  void admissionFlipsTheConditionAndRaisesAnEvent() {
    BatchJobStatus waiting =
        StatusComposer.decided(job(null, 1), waitFor(Reason.WaitingForCapacity, "m.", 100), T0)
            .status();
    Instant t1 = T0.plus(Duration.ofMinutes(2));
    var c =
        StatusComposer.decided(
            job(waiting, 1), new Decision.Admit("n1", NodeMode.Drone, 120, false), t1);
    assertThat(c.status().getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(c.status().getNode()).isEqualTo("n1");
    assertThat(c.status().getAdmittedAt()).isEqualTo(Times.format(t1));
    assertThat(c.status().getWaitingOn()).isNull();
    assertThat(
            Conditions.find(c.status().getConditions(), ConditionTypes.ADMITTED)
                .getLastTransitionTime())
        .isEqualTo(Times.format(t1));
    assertThat(c.events()).extracting(JobEvent::reason).containsExactly("Admitted");
  }

  @Test
  void starvingSetsTheConditionOnceWithOneEvent() {
    // The pass says what is held back for the job; the condition repeats it as it is.
    BatchJobStatus waiting =
        StatusComposer.decided(job(null, 1), waitFor(Reason.WaitingForCapacity, "m.", 100), T0)
            .status();
    var starving =
        StatusComposer.decided(
            job(waiting, 1),
            new Decision.Wait(Reason.WaitingForCapacity, "m.", List.of(), 400, HELD),
            T0.plus(Duration.ofHours(2)));
    assertThat(Conditions.isTrue(starving.status().getConditions(), ConditionTypes.STARVING))
        .isTrue();
    assertThat(
            Conditions.find(starving.status().getConditions(), ConditionTypes.STARVING)
                .getMessage())
        .startsWith("waiting since 2026-11-30T09:59:00Z")
        .endsWith(", longer than the starvation threshold; " + HELD);
    assertThat(starving.events()).extracting(JobEvent::reason).containsExactly("Starving");
    var again =
        StatusComposer.decided(
            job(starving.status(), 1),
            new Decision.Wait(Reason.WaitingForCapacity, "m.", List.of(), 400, HELD),
            T0.plus(Duration.ofHours(3)));
    assertThat(again.events()).isEmpty();
    assertThat(again.status()).isEqualTo(starving.status());
  }

  @Test
  void runningFinishingAndOverLimit() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("n1", NodeMode.Drone, 100, false), T0)
            .status();
    var running =
        StatusComposer.running(
            job(admitted, 1),
            new RunObservation(
                JobPhase.Running, null, null, T0.plusSeconds(5), null, Map.of(CPU, 2500L)),
            T0.plusSeconds(6));
    assertThat(running.status().getPhase()).isEqualTo(JobPhase.Running);
    assertThat(running.status().getOverLimit()).containsExactly(CPU);
    assertThat(Conditions.isTrue(running.status().getConditions(), ConditionTypes.OVER_LIMIT))
        .isTrue();
    assertThat(
            Conditions.find(running.status().getConditions(), ConditionTypes.OVER_LIMIT)
                .getMessage())
        .contains("measured peak 2500 octomy.io/cpu-milli is above its limit 2000");
    assertThat(running.events())
        .extracting(JobEvent::reason)
        .containsExactly("Started", "OverLimit");

    var finished =
        StatusComposer.running(
            job(running.status(), 1),
            new RunObservation(
                JobPhase.Failed,
                3,
                null,
                T0.plusSeconds(5),
                T0.plusSeconds(65),
                Map.of(CPU, 2400L)),
            T0.plusSeconds(70));
    assertThat(finished.status().getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(finished.status().getReason()).isEqualTo("Failed");
    assertThat(finished.status().getExitCode()).isEqualTo(3);
    assertThat(finished.status().getUsage()).containsEntry(CPU, 2500L);
    assertThat(finished.status().getMessage())
        .isEqualTo("failed on node n1 with exit code 3 after 60 s.");
    assertThat(finished.events()).extracting(JobEvent::reason).containsExactly("Failed");
  }

  @Test
  void aSpecChangeAfterAdmissionIsNotAppliedAndSaysSo() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("n1", NodeMode.Drone, 100, false), T0)
            .status();
    var c = StatusComposer.running(job(admitted, 2), null, T0.plusSeconds(10));
    assertThat(
            Conditions.find(c.status().getConditions(), ConditionTypes.SPEC_CHANGE_IGNORED)
                .getMessage())
        .contains("generation 2", "admitted at generation 1");
    assertThat(c.status().getObservedGeneration()).isEqualTo(1);
  }

  @Test
  void aSpecChangeAfterTheJobRanSaysItDoesNotRunAgainOncePerEdit() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("n1", NodeMode.Drone, 100, false), T0)
            .status();
    BatchJobStatus succeeded =
        StatusComposer.running(
                job(admitted, 1),
                new RunObservation(JobPhase.Succeeded, 0, null, T0, T0.plusSeconds(5), Map.of()),
                T0.plusSeconds(6))
            .status();
    assertThat(StatusComposer.editedSinceItRan(job(succeeded, 1))).isFalse();

    BatchJob edited = job(succeeded, 2);
    assertThat(StatusComposer.editedSinceItRan(edited)).isTrue();
    BatchJobStatus told = StatusComposer.finishedButEdited(edited, T0.plusSeconds(60));
    Condition c = Conditions.find(told.getConditions(), ConditionTypes.SPEC_CHANGE_IGNORED);
    assertThat(c.getReason()).isEqualTo("AlreadyFinished");
    assertThat(c.getMessage())
        .contains("generation 2", "after the job succeeded", "Delete and re-create it");
    assertThat(told.getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(told.getObservedGeneration()).isEqualTo(1);
    assertThat(StatusComposer.editedSinceItRan(job(told, 2))).as("told once").isFalse();
    assertThat(StatusComposer.editedSinceItRan(job(told, 3))).as("a later edit").isTrue();

    BatchJob deleted = job(succeeded, 2);
    deleted.getMetadata().setDeletionTimestamp(Times.format(T0.plusSeconds(70)));
    assertThat(StatusComposer.editedSinceItRan(deleted)).isFalse();
  }

  @Test
  void theGenerationADeleteAddsIsNotTakenForASpecChange() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("n1", NodeMode.Drone, 100, false), T0)
            .status();
    BatchJob deleted = job(admitted, 2);
    deleted.getMetadata().setDeletionTimestamp(Times.format(T0.plusSeconds(5)));
    var c = StatusComposer.running(deleted, null, T0.plusSeconds(10));
    assertThat(Conditions.find(c.status().getConditions(), ConditionTypes.SPEC_CHANGE_IGNORED))
        .isNull();
  }

  @Test
  void rejectionAndSkipAreFinalWithWarnings() {
    var r =
        StatusComposer.decided(
            job(null, 1),
            new Decision.Reject(
                Reason.InvalidSpec, "resource name 'x' has no domain; write it as example.com/x"),
            T0);
    assertThat(r.status().getPhase()).isEqualTo(JobPhase.Rejected);
    assertThat(r.status().getFinishedAt()).isNotNull();
    assertThat(r.events()).extracting(JobEvent::type).containsExactly("Warning");
    var s =
        StatusComposer.decided(
            job(null, 1), new Decision.Skip("root", "skipped: dependency root failed."), T0);
    assertThat(s.status().getPhase()).isEqualTo(JobPhase.Skipped);
    assertThat(s.status().getReason()).isEqualTo("DependencyFailed");
  }

  @Test
  void theEventsOfAProcessJobSayWhereItsOutputIs() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("ws-7", NodeMode.Drone, 100, false), T0)
            .status();
    String file = "/home/me/.octomy/agent/jobs/studio/a/uid-1/output.log";
    var running =
        StatusComposer.running(
            job(admitted, 1),
            new RunObservation(JobPhase.Running, null, null, T0, null, Map.of(), null, file),
            T0.plusSeconds(1));
    assertThat(running.events())
        .containsExactly(
            JobEvent.normal(
                "Started",
                "started on node ws-7. Its output is in "
                    + file
                    + " on that node (kubectl octomy logs "
                    + job(null, 1).getMetadata().getName()
                    + ")."));
    var finished =
        StatusComposer.running(
            job(running.status(), 1),
            new RunObservation(
                JobPhase.Succeeded, 0, null, T0, T0.plusSeconds(30), Map.of(), null, file),
            T0.plusSeconds(31));
    assertThat(finished.events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .startsWith("succeeded on node ws-7 with exit code 0 after 30 s.")
                    .endsWith(
                        "Its output is in "
                            + file
                            + " on that node (kubectl octomy logs "
                            + job(null, 1).getMetadata().getName()
                            + ")."));
  }

  @Test
  void whereTheControllerCannotReadItsNodesFilesTheEventsSayToReadTheOutputOnThatNode() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("ws-7", NodeMode.Drone, 100, false), T0)
            .status();
    String file = "/home/me/.octomy/agent/jobs/default/a/u1/1/output.log";
    String readThere =
        " Its output is in "
            + file
            + " on that node: read it there (e.g. tail -n 100 "
            + file
            + "); kubectl octomy logs reads only output kept where the controller runs.";
    var running =
        StatusComposer.running(
            job(admitted, 1),
            new RunObservation(JobPhase.Running, null, null, T0, null, Map.of(), null, file),
            T0.plusSeconds(1),
            Policy.defaults(),
            false);
    assertThat(running.events())
        .containsExactly(JobEvent.normal("Started", "started on node ws-7." + readThere));
    var finished =
        StatusComposer.running(
            job(running.status(), 1),
            new RunObservation(
                JobPhase.Failed, 3, null, T0, T0.plusSeconds(30), Map.of(), null, file),
            T0.plusSeconds(31),
            Policy.defaults(),
            false);
    assertThat(finished.events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .startsWith("failed on node ws-7 with exit code 3 after 30 s.")
                    .endsWith(readThere));
  }

  @Test
  void aRetriedRunNamesItsOutputFileWhereKubectlOctomyLogsCannotReachIt() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("ws-7", NodeMode.Drone, 100, false), T0)
            .status();
    String file = "/home/me/.octomy/agent/jobs/default/a/u1/1/output.log";
    RunObservation failed =
        new RunObservation(JobPhase.Failed, 3, null, T0, T0.plusSeconds(30), Map.of(), null, file);
    BatchJob retried = job(admitted, 1);
    retried.getSpec().setBackoffLimit(2);

    var cluster =
        StatusComposer.running(retried, failed, T0.plusSeconds(31), Policy.defaults(), false);
    assertThat(cluster.events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .contains("Its output: " + file + " on node ws-7.")
                    .doesNotContain("kubectl octomy logs"));
    assertThat(Conditions.find(cluster.status().getConditions(), ConditionTypes.ADMITTED))
        .satisfies(
            c -> assertThat(c.getMessage()).contains("Its output: " + file + " on node ws-7."));

    var standalone =
        StatusComposer.running(retried, failed, T0.plusSeconds(31), Policy.defaults(), true);
    assertThat(standalone.events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .contains("Its output: kubectl octomy logs a --run 1.")
                    .doesNotContain(file));
  }

  @Test
  void aJobStoppedForItsDeleteSaysSoAndPointsAtNoOutput() {
    BatchJobStatus admitted =
        StatusComposer.decided(
                job(null, 1), new Decision.Admit("ws-7", NodeMode.Drone, 100, false), T0)
            .status();
    String file = "/home/me/.octomy/agent/jobs/studio/a/uid-1/output.log";
    BatchJobStatus running =
        StatusComposer.running(
                job(admitted, 1),
                new RunObservation(JobPhase.Running, null, null, T0, null, Map.of(), null, file),
                T0.plusSeconds(1))
            .status();
    BatchJob deleted = job(running, 2);
    deleted.getMetadata().setDeletionTimestamp(Times.format(T0.plusSeconds(10)));
    var stopped =
        StatusComposer.running(
            deleted,
            new RunObservation(
                JobPhase.Failed, 143, "Stopped", T0, T0.plusSeconds(11), Map.of(), null, file),
            T0.plusSeconds(12));
    assertThat(stopped.events())
        .containsExactly(
            JobEvent.warning(
                "Failed",
                "failed on node ws-7 with exit code 143 (Stopped) after 11 s. The job was deleted"
                    + " while it ran, so its agent stopped it; its output is removed with the"
                    + " job."));
    // Ended on its own while its delete waited: the file goes with the job all the same.
    var ended =
        StatusComposer.running(
            deleted,
            new RunObservation(
                JobPhase.Succeeded, 0, null, T0, T0.plusSeconds(11), Map.of(), null, file),
            T0.plusSeconds(12));
    assertThat(ended.events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .endsWith("The job is being deleted; its output is removed with it.")
                    .doesNotContain(file)
                    .doesNotContain("kubectl octomy logs"));
  }
}
