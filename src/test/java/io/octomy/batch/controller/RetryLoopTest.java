package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.EndedRun;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Retries ({@code spec.backoffLimit}) through the admission loop, against a fake cluster whose
 * agent reports are written by the test and whose clock the test moves: no sleeping.
 */
class RetryLoopTest {

  private final AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();

  @AfterEach
  void close() {
    h.loop.close();
  }

  @Test
  void aFailingRunIsRetriedAfterADoublingBackOffUntilTheLimitThenFails() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    BatchJob job = aJob("flaky").cpu(1000).type("solve").build();
    job.getSpec().setBackoffLimit(2);
    h.cluster.add(job);
    h.pass();
    String queuedAt = status().getQueuedAt();

    runFails(1, 3);
    BatchJobStatus s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(s.getReason()).isEqualTo("BackingOff");
    assertThat(s.getRun()).isEqualTo(2);
    assertThat(s.getFailedRuns()).isEqualTo(1);
    assertThat(s.getQueuedAt()).as("keeps its place").isEqualTo(queuedAt);
    assertThat(s.getNode()).isNull();
    EndedRun first = s.getRuns().get(0);
    assertThat(first.getRun()).isEqualTo(1);
    assertThat(first.getNode()).isEqualTo("n1");
    assertThat(first.getExitCode()).isEqualTo(3);
    assertThat(first.getOutput()).isEqualTo("/state/jobs/default/flaky/uid-flaky/output.log");
    Instant firstEnd = Times.parse(first.getFinishedAt());

    h.pass(); // the pass after the retry's write sets a pass for its back-off's end
    assertThat(h.loop.wakeAt())
        .as("a pass is set for the back-off's end")
        .isEqualTo(firstEnd.plusSeconds(10));
    assertThat(status().getReason()).isEqualTo("BackingOff");
    assertThat(status().getMessage())
        .isEqualTo(
            "run 1 exited 3 on node n1; failed runs 1 of backoffLimit 2; backing off after a"
                + " failed run: it may run again from "
                + firstEnd.plusSeconds(10)
                + " on.");
    h.clock.advance(Duration.ofSeconds(9));
    h.pass();
    assertThat(status().getPhase()).as("9 s into a 10 s back-off").isEqualTo(JobPhase.Queued);
    h.clock.advance(Duration.ofSeconds(1));
    h.pass();
    assertThat(status().getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(status().getRun()).isEqualTo(2);

    runFails(2, 3);
    Instant secondEnd = Times.parse(status().getRuns().get(1).getFinishedAt());
    h.clock.advance(Duration.ofSeconds(19));
    h.pass();
    assertThat(status().getPhase()).as("the back-off doubled to 20 s").isEqualTo(JobPhase.Queued);
    assertThat(h.loop.wakeAt()).isEqualTo(secondEnd.plusSeconds(20));
    h.clock.advance(Duration.ofSeconds(1));
    h.pass();
    assertThat(status().getPhase()).isEqualTo(JobPhase.Admitted);

    runFails(3, 3);
    s = status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(s.getFailedRuns()).isEqualTo(3);
    assertThat(s.getRun()).isEqualTo(3);
    assertThat(s.getExitCode()).isEqualTo(3);
    assertThat(s.getRuns()).extracting(EndedRun::getRun).containsExactly(1, 2);
    assertThat(s.getQueuedAt()).isEqualTo(queuedAt);
    assertThat(h.cluster.profiles().get("default/solve").runs())
        .as("every run is in the drift record")
        .isEqualTo(3);
  }

  @Test
  void aRunLostWithItsAgentIsRetriedAtOnceWithoutCounting() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    BatchJob lost = aJob("lost").cpu(1000).build();
    lost.getSpec().setBackoffLimit(1);
    h.cluster.add(lost);
    h.pass();
    NodeJob gone = entry("lost", 1, JobPhase.Failed);
    gone.setReason(NodeJob.REASON_AGENT_LOST);
    h.cluster.report("n1", gone);
    h.pass();
    BatchJobStatus s = status("lost");
    assertThat(s.getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(s.getFailedRuns()).isNull();
    assertThat(s.getRuns().get(0).getCounted()).isFalse();
    assertThat(h.loop.wakeAt()).as("no back-off").isNull();
    h.pass();
    assertThat(status("lost").getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(status("lost").getRun()).isEqualTo(2);
  }

  @Test
  void withoutBackoffLimitAFailedRunIsFinal() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("once").cpu(1000).build());
    h.pass();
    NodeJob failed = entry("once", 1, JobPhase.Failed);
    failed.setExitCode(1);
    h.cluster.report("n1", failed);
    h.pass();
    assertThat(status("once").getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(status("once").getFailedRuns()).isEqualTo(1);
    assertThat(status("once").getRuns()).isNull();
  }

  @Test
  void theStartedEventSuggestsKubectlOctomyLogsOnlyWhereThisControllerServesTheNodesOutput() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("flaky").cpu(1000).build());
    h.pass();
    NodeJob running = entry("flaky", 1, JobPhase.Running);
    h.cluster.report("n1", running);
    h.pass();
    h.eventsOnceSent();
    assertThat(h.cluster.eventMessages())
        .as("a controller on a cluster serves no node's files")
        .contains(
            "flaky: Started: started on node n1. Its output is in "
                + running.getOutput()
                + " on that node: read it there (e.g. tail -n 100 "
                + running.getOutput()
                + "); kubectl octomy logs reads only output kept where the controller runs.");

    h.serveLogsOn("n1"::equals);
    h.cluster.add(aJob("other").cpu(1000).build());
    h.pass();
    h.cluster.report("n1", entry("other", 1, JobPhase.Running));
    h.pass();
    h.eventsOnceSent();
    assertThat(h.cluster.eventMessages())
        .as("standalone serves its own node's files")
        .contains(
            "other: Started: started on node n1. Its output is in "
                + entry("other", 1, JobPhase.Running).getOutput()
                + " on that node (kubectl octomy logs other).");
  }

  /** Run {@code run} of flaky starts, then exits with {@code code} 5 s later. */
  private void runFails(int run, int code) {
    NodeJob running = entry("flaky", run, JobPhase.Running);
    running.setStartedAt(Times.format(h.clock.instant()));
    h.cluster.report("n1", running);
    h.pass();
    assertThat(status().getPhase()).isEqualTo(JobPhase.Running);
    h.clock.advance(Duration.ofSeconds(5));
    NodeJob failed = entry("flaky", run, JobPhase.Failed);
    failed.setStartedAt(running.getStartedAt());
    failed.setFinishedAt(Times.format(h.clock.instant()));
    failed.setExitCode(code);
    failed.setReason("Failed");
    failed.setUsage(java.util.Map.of(io.octomy.batch.fixtures.ApiFixtures.CPU, 500L));
    h.cluster.report("n1", failed);
    h.pass();
  }

  private static NodeJob entry(String name, int run, JobPhase phase) {
    NodeJob j = new NodeJob();
    j.setNamespace("default");
    j.setName(name);
    j.setUid("uid-" + name);
    j.setRun(run == 1 ? null : run);
    j.setPhase(phase);
    j.setOutput(
        "/state/jobs/default/"
            + name
            + "/uid-"
            + name
            + (run == 1 ? "" : ".run" + run)
            + "/output.log");
    return j;
  }

  private BatchJobStatus status() {
    return status("flaky");
  }

  private BatchJobStatus status(String name) {
    return h.cluster.job(name).getStatus();
  }
}
