package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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

  /**
   * A job stored with what no process can start with (an older CRD on a real cluster lets it in) is
   * reported failed with the field named, and the job after it still starts.
   */
  @Test
  void anUnlaunchableJobIsReportedFailedAndTheNextOneStillStarts() {
    tracker = new ProcessJobs("ws-7", new ProcessExecutor(state), stopper, () -> {});
    BatchJob nullEnv = placed("a-null-env");
    container(nullEnv).setEnv(Arrays.asList((EnvVar) null));
    BatchJob nulDir = placed("b-nul-dir");
    container(nulDir).setWorkingDir("/tmp/a\u0000b");
    BatchJob nullArg = placed("c-null-arg");
    container(nullArg).setCommand(Arrays.asList("echo", null));
    InformedJobs informed = InformedJobs.of(List.of(nullEnv, nulDir, nullArg, placed("d-fine")));

    assertThat(tracker.reconcile(informed)).isTrue();
    List<NodeJob> reports = tracker.reports();
    assertThat(reports).extracting(NodeJob::getName).contains("d-fine");
    for (String name : List.of("a-null-env", "b-nul-dir", "c-null-arg")) {
      NodeJob report =
          reports.stream().filter(r -> r.getName().equals(name)).findFirst().orElseThrow();
      assertThat(report.getPhase()).isEqualTo(JobPhase.Failed);
      assertThat(report.getReason()).isEqualTo(LaunchPlan.INVALID_CONTAINER);
      assertThat(report.getMessage()).contains("spec.template.spec.containers[0].");
    }
    assertThat(tracker.reconcile(informed)).as("refused once, not again and again").isFalse();
  }

  private static BatchJob placed(String name) {
    return ApiFixtures.aJob(name)
        .namespace("studio")
        .uid("uid-" + name)
        .command("true")
        .placed("ws-7", JobPhase.Admitted)
        .build();
  }

  private static Container container(BatchJob job) {
    return job.getSpec().getTemplate().getSpec().getContainers().get(0);
  }
}
