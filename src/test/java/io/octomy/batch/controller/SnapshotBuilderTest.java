package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What is final and what is decided again, read off a job's status. */
class SnapshotBuilderTest {

  static Stream<Arguments> phases() {
    return Stream.of(
        Arguments.of("no status yet", null, null, true, JobPhase.Queued),
        Arguments.of("queued", JobPhase.Queued, "WaitingForCapacity", true, JobPhase.Queued),
        Arguments.of("admitted", JobPhase.Admitted, "Admitted", true, JobPhase.Admitted),
        Arguments.of("running", JobPhase.Running, "Admitted", true, JobPhase.Running),
        Arguments.of(
            "succeeded is final", JobPhase.Succeeded, "Succeeded", true, JobPhase.Succeeded),
        Arguments.of("failed is final", JobPhase.Failed, "Failed", true, JobPhase.Failed),
        Arguments.of(
            "skipped is decided again",
            JobPhase.Skipped,
            "DependencyFailed",
            true,
            JobPhase.Queued),
        Arguments.of(
            "a cycle is decided again",
            JobPhase.Rejected,
            "DependencyCycle",
            true,
            JobPhase.Queued),
        Arguments.of(
            "an invalid spec, now fixed, is decided again",
            JobPhase.Rejected,
            "InvalidSpec",
            true,
            JobPhase.Queued),
        Arguments.of(
            "an invalid spec, still invalid, stays rejected",
            JobPhase.Rejected,
            "InvalidSpec",
            false,
            JobPhase.Rejected));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("phases")
  void effectivePhase(String name, JobPhase phase, String reason, boolean valid, JobPhase want) {
    BatchJob j = valid ? aJob("j").build() : aJob("j").request("cfd-cores", 4).build();
    j.getMetadata().setUid("uid-j");
    if (phase != null) {
      BatchJobStatus s = new BatchJobStatus();
      s.setPhase(phase);
      s.setReason(reason);
      j.setStatus(s);
    }
    assertThat(new SnapshotBuilder().effectivePhase(j)).isEqualTo(want);
    assertThat(want == phase || phase == null)
        .as("only a final or holding phase stands as it is")
        .isEqualTo(phase == null || !phase.isFinished() || phase.isFinal() || !valid);
  }
}
