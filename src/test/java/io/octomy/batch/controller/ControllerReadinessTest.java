package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * /readyz: the standby is ready once it has seen another replica hold the Lease; the replica that
 * holds it only once what it serves beside its decisions answers.
 */
class ControllerReadinessTest {

  private final AtomicBoolean answering = new AtomicBoolean();

  private ControllerReadiness started(boolean election) {
    ControllerReadiness r = new ControllerReadiness(election, "replica-a");
    r.requireWhileDeciding(answering::get);
    r.started();
    return r;
  }

  @Test
  void notReadyBeforeTheOperatorStarts() {
    ControllerReadiness r = new ControllerReadiness(true, "replica-a");
    r.leaderIs("replica-b");
    assertThat(r.notReadyBecause()).isEqualTo("caches not synced yet");
  }

  @Test
  void notReadyWhileNoReplicaHoldsTheLease() {
    ControllerReadiness r = started(true);
    assertThat(r.notReadyBecause()).isEqualTo("no replica holds the Lease yet");
    r.leaderIs("");
    assertThat(r.notReadyBecause()).isEqualTo("no replica holds the Lease yet");
  }

  @Test
  void theStandbyIsReadyWithoutServing() {
    ControllerReadiness r = started(true);
    r.leaderIs("replica-b");
    assertThat(r.notReadyBecause()).isNull();
  }

  @Test
  void theLeaderIsReadyOnlyOnceItAnswers() {
    ControllerReadiness r = started(true);
    r.leaderIs("replica-a");
    assertThat(r.notReadyBecause())
        .isEqualTo(
            "deciding, but the visibility API and webhook are not published and reached yet");
    answering.set(true);
    assertThat(r.notReadyBecause()).isNull();
  }

  @Test
  void withoutLeaderElectionTheOneReplicaWaitsForWhatItServes() {
    ControllerReadiness r = started(false);
    assertThat(r.notReadyBecause()).isNotNull();
    answering.set(true);
    assertThat(r.notReadyBecause()).isNull();
  }
}
