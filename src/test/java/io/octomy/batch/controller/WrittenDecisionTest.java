package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.api.BatchJob;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A decision counts as written again only for the same object, decision and queue time. */
class WrittenDecisionTest {

  private static final Instant QUEUED = Instant.parse("2026-03-01T12:00:00Z");
  private static final Decision WAIT =
      new Decision.Wait(Reason.WaitingForCapacity, "m.", List.of(), 0, null);

  private final WrittenDecision written = new WrittenDecision();
  private final BatchJob job = aJob("a").build();

  @Test
  void nothingIsWrittenBeforeAPassFoundIt() {
    assertThat(written.stillWritten(job, WAIT, QUEUED)).isFalse();
    assertThat(written.stillWritten(null, WAIT, QUEUED)).as("not even no job").isFalse();
  }

  @Test
  void foundWrittenOnceItStaysWrittenForTheSameObjectDecisionAndQueueTime() {
    written.written(job, WAIT, QUEUED);
    assertThat(written.stillWritten(job, WAIT, QUEUED)).isTrue();
    assertThat(written.stillWritten(job, WAIT, QUEUED)).as("and at the pass after").isTrue();
  }

  @Test
  void anotherObjectDecisionOrQueueTimeIsNotWritten() {
    written.written(job, WAIT, QUEUED);
    assertThat(written.stillWritten(aJob("a").build(), WAIT, QUEUED)).isFalse();
    assertThat(
            written.stillWritten(
                job,
                new Decision.Wait(Reason.WaitingForCapacity, "n.", List.of(), 0, null),
                QUEUED))
        .isFalse();
    assertThat(written.stillWritten(job, WAIT, QUEUED.plusSeconds(1))).isFalse();
  }

  @Test
  void theLatestFindingReplacesTheOneBefore() {
    written.written(job, WAIT, QUEUED);
    BatchJob next = aJob("a").build();
    written.written(next, WAIT, QUEUED);
    assertThat(written.stillWritten(job, WAIT, QUEUED)).isFalse();
    assertThat(written.stillWritten(next, WAIT, QUEUED)).isTrue();
  }
}
