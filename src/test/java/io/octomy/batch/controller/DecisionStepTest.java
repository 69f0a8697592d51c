package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The controller's deciding step over a cache that changes as the API server would change it: a
 * decision already written causes no write, however many passes decide it again, and any new object
 * in the cache (a status edited by someone else) or a new decision is composed afresh.
 */
class DecisionStepTest {

  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private final DecisionStep step =
      new DecisionStep(
          new AssumedAdmissions(),
          new SnapshotBuilder(),
          new StatusWriteGate(
              Duration.ofSeconds(30), new ControllerMetrics(new SimpleMeterRegistry())),
          Policy.defaults());

  private Instant now = NOW;
  private int version = 1;

  private static BatchNode node(long cpuMilli) {
    return aNode("node-a").capacity(ApiFixtures.CPU, cpuMilli).heartbeat(NOW).build();
  }

  private BatchJob job() {
    BatchJob job = aJob("solve").namespace("lab").uid("uid-solve").cpu(4_000).build();
    job.getMetadata().setResourceVersion(Integer.toString(version++));
    job.getMetadata().setCreationTimestamp(Times.format(NOW));
    return job;
  }

  private List<StatusWrite> decide(BatchJob job, BatchNode node) {
    now = now.plusSeconds(1);
    return step.decide(List.of(job), List.of(node), new JobsByKey(List.of(job)), now).writes();
  }

  /** The job as the cache shows it once the write landed: a new object, a new version. */
  private BatchJob landed(BatchJob job, StatusWrite write) {
    BatchJob stored = job();
    stored.setStatus(write.composed().status());
    return stored;
  }

  @Test
  void aWrittenDecisionIsNotWrittenAgainButAnEditedStatusIsComposedAfresh() {
    BatchNode small = node(1_000);
    BatchJob queued = job();
    List<StatusWrite> first = decide(queued, small);
    assertThat(first).hasSize(1);
    assertThat(first.get(0).composed().status().getReason()).isEqualTo("NoNodeFits");

    BatchJob written = landed(queued, first.get(0));
    assertThat(decide(written, small)).as("the same decision, written").isEmpty();
    assertThat(decide(written, small)).as("and again, the same object").isEmpty();

    BatchJob edited = job();
    BatchJobStatus wiped = new BatchJobStatus();
    wiped.setQueuedAt(written.getStatus().getQueuedAt());
    wiped.setPhase(JobPhase.Queued);
    edited.setStatus(wiped);
    List<StatusWrite> again = decide(edited, small);
    assertThat(again).as("someone else's edit is written over").hasSize(1);
    assertThat(again.get(0).composed().status().getReason()).isEqualTo("NoNodeFits");
  }

  @Test
  void aNewDecisionOfTheSameObjectIsWritten() {
    BatchJob queued = job();
    BatchJob written = landed(queued, decide(queued, node(1_000)).get(0));
    assertThat(decide(written, node(1_000))).isEmpty();

    List<StatusWrite> admitted = decide(written, node(8_000));
    assertThat(admitted).hasSize(1);
    assertThat(admitted.get(0).admission()).isTrue();
    assertThat(admitted.get(0).composed().status().getPhase()).isEqualTo(JobPhase.Admitted);
  }
}
