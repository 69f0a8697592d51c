package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.controller.FakeCluster.Fault;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Clean-up of finished jobs through the admission loop against {@link FakeCluster}: the clock and
 * the timers are in the test's hands (no sleeping), so each case shows the job is there one second
 * before its time and gone at it, that an old timer never deletes a job re-created under its name,
 * and that a dependant still finds a cleaned-up ancestor succeeded after a controller restart.
 */
class FinishedJobCleanupLoopTest {

  private static final String CPU = ApiFixtures.CPU;

  private final FakeCluster cluster = new FakeCluster();
  private final TestClock clock = TestClock.standing();

  /** The delays the loop armed timers for, in order. */
  private final List<Duration> timers = new ArrayList<>();

  private AdmissionLoop loop;

  @AfterEach
  void close() {
    if (loop != null) {
      loop.close();
    }
  }

  private AdmissionLoop newLoop(Policy policy) {
    if (loop != null) {
      loop.close();
    }
    AdmissionLoop.Settings settings =
        new AdmissionLoop.Settings(
            Duration.ofHours(1), Duration.ofHours(1), Duration.ofSeconds(30), 2);
    loop =
        new AdmissionLoop(
            cluster,
            cluster,
            policy,
            clock,
            new ControllerMetrics(new SimpleMeterRegistry()),
            settings,
            (delay, wake) -> timers.add(delay));
    return loop;
  }

  /** A job that ended {@code ago} before now in {@code phase}, as the controller wrote it. */
  private BatchJob ended(String name, JobPhase phase, Duration ago, Integer ttlSeconds) {
    BatchJobStatus s = new BatchJobStatus();
    s.setPhase(phase);
    s.setReason(phase.name());
    s.setQueuedAt(Times.format(clock.instant().minus(ago).minusSeconds(60)));
    s.setFinishedAt(Times.format(clock.instant().minus(ago)));
    BatchJob job = aJob(name).status(s).build();
    job.getSpec().setTtlSecondsAfterFinished(ttlSeconds);
    return job;
  }

  @Test
  void aJobAndItsPodAreDeletedAtItsTtlNotBeforeAndItsRunStaysInTheDriftRecord() {
    newLoop(Policy.defaults());
    cluster.add(aNode("n1").capacity(CPU, 4000).executor(Executor.Pod).heartbeat(now()).build());
    BatchJob job = aJob("a").cpu(1000).type("solve").build();
    job.getSpec().setTtlSecondsAfterFinished(60);
    cluster.add(job);
    loop.runPass(); // admitted
    loop.runPass(); // its Pod created
    cluster.podPhase("a", "Running");
    loop.runPass();
    clock.advance(Duration.ofSeconds(30));
    cluster.podPhase("a", "Succeeded");
    loop.runPass(); // finished, folded into the drift record of "solve"
    Instant finished = Times.parse(cluster.job("a").getStatus().getFinishedAt());
    assertThat(cluster.job("a").getStatus().getPhase()).isEqualTo(JobPhase.Succeeded);

    loop.runPass(); // arms the timer for the time left
    assertThat(timers).last().isEqualTo(Duration.between(now(), finished.plusSeconds(60)));

    clock.advance(Duration.between(now(), finished.plusSeconds(59)));
    loop.runPass();
    assertThat(cluster.job("a")).as("one second before its TTL").isNotNull();
    assertThat(cluster.podNames()).containsExactly("a");

    clock.advance(Duration.ofSeconds(1));
    loop.runPass();
    assertThat(cluster.job("a")).as("at its TTL").isNull();
    assertThat(cluster.podNames()).isEmpty();
    assertThat(cluster.jobsDeleted()).containsExactly("a@uid-a");
    loop.runPass();
    assertThat(cluster.profiles().get("default/solve").runs()).isEqualTo(1);
    assertThat(cluster.profiles().get("default/solve").foldedJobs()).contains("uid-a");
  }

  @Test
  void thePolicyDefaultAppliesToJobsThatSayNothingAndWithoutItFinishedJobsAreKept() {
    cluster.add(ended("failed", JobPhase.Failed, Duration.ofMinutes(1), null));
    BatchJob skipped = ended("skipped", JobPhase.Skipped, Duration.ofMinutes(1), null);
    skipped.getSpec().setAfter(List.of("failed"));
    skipped.getStatus().setReason("DependencyFailed");
    cluster.add(skipped);
    cluster.add(ended("own", JobPhase.Failed, Duration.ofMinutes(1), 3600));
    newLoop(Policy.defaults());
    clock.advance(Duration.ofDays(1000));
    loop.runPass();
    assertThat(cluster.job("failed")).isNotNull();
    assertThat(cluster.job("skipped")).isNotNull();
    assertThat(cluster.job("own")).as("its own TTL, without a policy").isNull();

    newLoop(Policy.defaults().withFinishedJobTTL(Duration.ofMinutes(10)));
    BatchJob rejected = ended("later", JobPhase.Rejected, Duration.ZERO, null);
    rejected.getSpec().setType("Not_A_Label");
    rejected.getStatus().setReason("InvalidSpec");
    cluster.add(rejected);
    loop.runPass();
    assertThat(cluster.job("failed")).isNull();
    assertThat(cluster.job("skipped")).isNull();
    assertThat(cluster.job("later")).isNotNull();
    assertThat(timers).containsExactly(Duration.ofMinutes(10));
    assertThat(cluster.cleanedUp("default")).as("only succeeded jobs are recorded").isEmpty();
  }

  @Test
  void aTtlEditedAfterTheJobEndedCountsFromTheSameEnd() {
    cluster.add(ended("a", JobPhase.Failed, Duration.ZERO, 3600));
    newLoop(Policy.defaults());
    loop.runPass();
    assertThat(timers).containsExactly(Duration.ofHours(1));
    cluster.editSpec("a", spec -> spec.setTtlSecondsAfterFinished(60));
    clock.advance(Duration.ofSeconds(30));
    loop.runPass();
    assertThat(timers).containsExactly(Duration.ofHours(1), Duration.ofSeconds(30));
    clock.advance(Duration.ofSeconds(30));
    loop.runPass();
    assertThat(cluster.job("a")).isNull();
  }

  @Test
  void anOldTimerNeverDeletesAJobReCreatedUnderItsName() {
    cluster.add(ended("a", JobPhase.Succeeded, Duration.ofMinutes(5), 60));
    newLoop(Policy.defaults());
    cluster.autoSync = false;
    cluster.sync();
    // Deleted and re-created on the server while the cache still shows the old, due one.
    cluster.delete("a");
    cluster.add(aJob("a").cpu(1000).build());

    loop.runPass();
    assertThat(cluster.job("a").getMetadata().getUid()).isEqualTo("uid-a-2");
    assertThat(cluster.jobsDeleted()).isEmpty();
    assertThat(cluster.cleanedUp("default")).containsOnlyKeys("a"); // recorded before the delete

    cluster.sync();
    loop.runPass();
    assertThat(cluster.cleanedUp("default"))
        .as("the entry of the old one goes once the new one is seen")
        .isEmpty();
    assertThat(cluster.job("a")).isNotNull();
  }

  @Test
  void aSucceededAncestorIsRecordedBeforeItGoesAndCountsForDependantsAcrossARestart() {
    cluster.add(aNode("n1").capacity(CPU, 4000).executor(Executor.Pod).heartbeat(now()).build());
    cluster.add(ended("pre", JobPhase.Succeeded, Duration.ofMinutes(5), 60));
    cluster.fault("record/default", Fault.TIMEOUT_LOST);
    newLoop(Policy.defaults());
    loop.runPass();
    assertThat(cluster.job("pre")).as("not deleted before it is recorded").isNotNull();
    loop.runPass();
    assertThat(cluster.job("pre")).isNull();
    assertThat(cluster.cleanedUp("default")).containsOnlyKeys("pre");
    assertThat(cluster.cleanedUp("default").get("pre")).endsWith(" uid-pre");

    newLoop(Policy.defaults()); // a controller restart: nothing but the server's state is kept
    cluster.add(aJob("post").cpu(1000).after("pre").build());
    cluster.add(aJob("orphan").cpu(1000).after("never-existed").build());
    loop.runPass(); // reads the namespace's record: its first job that names dependencies
    loop.runPass();
    assertThat(cluster.recordReads()).containsExactly("default");
    assertThat(cluster.job("post").getStatus().getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(cluster.job("orphan").getStatus().getReason()).isEqualTo("WaitingForDependency");
  }

  @Test
  void aReCreatedAncestorDecidesAgainInsteadOfItsRecord() {
    cluster.add(aNode("n1").capacity(CPU, 4000).executor(Executor.Pod).heartbeat(now()).build());
    cluster.add(ended("pre", JobPhase.Succeeded, Duration.ofMinutes(5), 0));
    newLoop(Policy.defaults());
    loop.runPass();
    assertThat(cluster.cleanedUp("default")).containsOnlyKeys("pre");

    cluster.add(ended("pre", JobPhase.Failed, Duration.ZERO, null)); // re-created, and failed
    cluster.add(aJob("post").cpu(1000).after("pre").build());
    loop.runPass();
    assertThat(cluster.job("post").getStatus().getPhase()).isEqualTo(JobPhase.Skipped);
    assertThat(cluster.cleanedUp("default")).isEmpty();
  }

  private Instant now() {
    return clock.instant();
  }
}
