package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Process executor's side of the agent over real processes: how admitted jobs are started. */
class ProcessJobsE2E {

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
  void aReconcileStartsAtMostItsShareAndSaysThatMoreAreLeft() {
    tracker = new ProcessJobs("ws-7", new ProcessExecutor(state), stopper, () -> {});
    int admitted = ProcessJobs.STARTS_PER_RECONCILE + 5;
    List<BatchJob> jobs = new ArrayList<>();
    for (int i = 0; i < admitted; i++) {
      jobs.add(
          ApiFixtures.aJob("tiny-" + i)
              .namespace("studio")
              .uid("uid-" + i)
              .command("true")
              .placed("ws-7", JobPhase.Admitted)
              .build());
    }
    InformedJobs informed = InformedJobs.of(jobs);

    assertThat(tracker.reconcile(informed)).isTrue();
    assertThat(tracker.reports()).hasSize(ProcessJobs.STARTS_PER_RECONCILE);
    assertThat(tracker.startsLeft()).as("five wait for the next reconcile").isTrue();

    assertThat(tracker.reconcile(informed)).isTrue();
    assertThat(tracker.reports()).hasSize(admitted);
    assertThat(tracker.startsLeft()).isFalse();

    assertThat(tracker.reconcile(informed)).as("each started once").isFalse();
    assertThat(tracker.reports()).hasSize(admitted);
  }
}
