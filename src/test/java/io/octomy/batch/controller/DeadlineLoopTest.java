package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code spec.activeDeadlineSeconds} through the admission loop, against a fake cluster and a clock
 * the test moves: a run past its deadline fails with reason DeadlineExceeded, is not retried, and
 * its Pod is deleted (a process is stopped by its agent, which sees the job ended).
 */
class DeadlineLoopTest {

  private final AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();

  @AfterEach
  void close() {
    h.loop.close();
  }

  @Test
  void aProcessRunPastItsDeadlineFailsAndIsNotRetried() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    BatchJob job = aJob("slow").cpu(1000).build();
    job.getSpec().setActiveDeadlineSeconds(2L);
    job.getSpec().setBackoffLimit(3);
    h.cluster.add(job);
    h.pass();
    Instant started = h.clock.instant();
    NodeJob running = new NodeJob();
    running.setNamespace("default");
    running.setName("slow");
    running.setUid("uid-slow");
    running.setPhase(JobPhase.Running);
    running.setStartedAt(Times.format(started));
    h.cluster.report("n1", running);
    h.pass();
    assertThat(status().getPhase()).isEqualTo(JobPhase.Running);
    h.pass();
    assertThat(h.loop.wakeAt())
        .as("a pass is set for the deadline")
        .isEqualTo(started.plusSeconds(2));
    h.clock.advance(Duration.ofMillis(1999));
    h.pass();
    assertThat(status().getPhase()).as("1.999 s into 2 s").isEqualTo(JobPhase.Running);
    h.clock.advance(Duration.ofMillis(1));
    h.pass();
    BatchJobStatus s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(s.getReason()).isEqualTo("DeadlineExceeded");
    assertThat(s.getMessage())
        .contains("It ran longer than spec.activeDeadlineSeconds (2 s), so it is stopped");
    assertThat(s.getFailedRuns()).as("not a failed run: no retry").isNull();
    assertThat(s.getRun()).isNull();
    h.pass();
    assertThat(status().getPhase()).isEqualTo(JobPhase.Failed);
  }

  @Test
  void aPodRunPastItsDeadlineHasItsPodDeleted() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
    BatchJob job = aJob("pod-slow").cpu(1000).build();
    job.getSpec().setActiveDeadlineSeconds(60L);
    h.cluster.add(job);
    h.pass(); // admitted
    h.pass(); // its Pod created
    h.cluster.podPhase("pod-slow", "Running"); // started at the clock's start
    h.pass();
    assertThat(h.cluster.job("pod-slow").getStatus().getPhase()).isEqualTo(JobPhase.Running);
    h.clock.advance(Duration.ofSeconds(60));
    h.pass();
    assertThat(h.cluster.job("pod-slow").getStatus().getReason()).isEqualTo("DeadlineExceeded");
    assertThat(h.cluster.podsDeleted()).containsExactly("pod-slow");
  }

  private BatchJobStatus status() {
    return h.cluster.job("slow").getStatus();
  }
}
