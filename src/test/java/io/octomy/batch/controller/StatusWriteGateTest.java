package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which composed statuses are written: first decisions, real changes, wording at most every
 * refresh, never on a stale copy.
 */
class StatusWriteGateTest {

  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  private final StatusWriteGate gate =
      new StatusWriteGate(Duration.ofSeconds(30), new ControllerMetrics(new SimpleMeterRegistry()));

  private static BatchJob job(String resourceVersion, BatchJobStatus status) {
    BatchJob j = new BatchJob();
    j.setMetadata(new ObjectMeta());
    j.getMetadata().setName("a");
    j.getMetadata().setNamespace("default");
    j.getMetadata().setUid("u1");
    j.getMetadata().setResourceVersion(resourceVersion);
    j.getMetadata().setGeneration(1L);
    j.getMetadata().setCreationTimestamp("2026-11-30T09:59:00Z");
    j.setSpec(new BatchJobSpec());
    j.setStatus(status);
    return j;
  }

  private static BatchJobStatus waiting(
      BatchJob job, Reason reason, String message, long priority, Instant now) {
    return StatusComposer.decided(
            job, new Decision.Wait(reason, message, List.of(), priority, null), now)
        .status();
  }

  @Test
  void aFirstDecisionIsWrittenAgingAloneIsNot() {
    BatchJob fresh = job("1", null);
    BatchJobStatus first =
        waiting(fresh, Reason.WaitingForCapacity, "need 1000; 500 free.", 100, T0);
    assertThat(gate.needsWrite(fresh, first, T0)).isTrue();

    BatchJob written = job("2", first);
    BatchJobStatus aged =
        waiting(
            written, Reason.WaitingForCapacity, "need 1000; 500 free.", 130, T0.plusSeconds(600));
    assertThat(gate.needsWrite(written, aged, T0.plusSeconds(600))).isFalse();
  }

  @Test
  void aNewReasonIsWrittenAtOnceNewWordingAtMostOncePerRefresh() {
    BatchJob written =
        job(
            "2",
            waiting(job("1", null), Reason.WaitingForCapacity, "need 1000; 500 free.", 100, T0));
    BatchJobStatus otherReason =
        waiting(written, Reason.WaitingForLock, "waiting for lock k.", 100, T0.plusSeconds(1));
    assertThat(gate.needsWrite(written, otherReason, T0.plusSeconds(1))).isTrue();

    BatchJobStatus reworded =
        waiting(written, Reason.WaitingForCapacity, "need 1000; 700 free.", 100, T0.plusSeconds(1));
    assertThat(gate.needsWrite(written, reworded, T0.plusSeconds(1)))
        .as("first sighting starts the clock")
        .isFalse();
    assertThat(gate.needsWrite(written, reworded, T0.plusSeconds(20)))
        .as("within the refresh")
        .isFalse();
    assertThat(gate.needsWrite(written, reworded, T0.plusSeconds(32)))
        .as("after the refresh")
        .isTrue();
    gate.written(written, T0.plusSeconds(32));
    assertThat(gate.needsWrite(written, reworded, T0.plusSeconds(40))).as("just written").isFalse();
  }

  /** The informer's cache holding these jobs, by key. */
  private static JobsByKey cache(BatchJob... jobs) {
    return new JobsByKey(List.of(jobs));
  }

  @Test
  void aCachedCopyOurWriteReplacedIsStaleUntilTheCacheMovesOn() {
    BatchJob cached = job("7", null);
    assertThat(gate.ourWritePending(cached)).isFalse();
    gate.written(cached, T0);
    assertThat(gate.ourWritePending(cached)).isTrue();

    gate.retain(cache(cached)); // the cache still shows version 7
    assertThat(gate.ourWritePending(cached)).isTrue();

    BatchJob caughtUp = job("8", null);
    gate.retain(cache(caughtUp));
    assertThat(gate.ourWritePending(caughtUp)).isFalse();
    assertThat(gate.ourWritePending(cached)).as("forgotten once the cache moved on").isFalse();
  }

  @Test
  void aWriteOnItsWayKeepsTheJobPendingWhateverTheCacheShowsUntilAnswered() {
    BatchJob cached = job("7", null);
    gate.sending(cached);
    assertThat(gate.ourWritePending(cached)).isTrue();
    BatchJob otherVersion = job("8", null); // e.g. our finalizer write landed before the status
    gate.retain(cache(otherVersion));
    assertThat(gate.ourWritePending(otherVersion)).isTrue();
    assertThat(gate.sending()).isEqualTo(1);

    gate.written(otherVersion, T0);
    gate.answered(cached);

    assertThat(gate.sending()).isZero();
    assertThat(gate.ourWritePending(otherVersion)).as("landed, the cache not there yet").isTrue();
    gate.retain(cache(job("9", null)));
    assertThat(gate.ourWritePending(job("9", null))).isFalse();
  }

  @Test
  void aDeletedJobIsForgotten() {
    BatchJob cached = job("7", null);
    gate.written(cached, T0);
    gate.retain(cache());
    assertThat(gate.ourWritePending(cached)).isFalse();
  }
}
