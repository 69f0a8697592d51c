package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.api.BatchJob;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A decision counts as written again only for the same object, decision and queue time. */
class UnchangedStatusesTest {

  private static final JobKey KEY = new JobKey("default", "a");
  private static final Instant QUEUED = Instant.parse("2026-03-01T12:00:00Z");
  private static final Decision WAIT =
      new Decision.Wait(Reason.WaitingForCapacity, "m.", List.of(), 0, null);

  private final UnchangedStatuses unchanged = new UnchangedStatuses();
  private final BatchJob job = aJob("a").build();

  @Test
  void writtenByOnePassIsStillWrittenAtTheNextAndTheOneAfterWhileCarried() {
    unchanged.written(KEY, job, WAIT, QUEUED);
    assertThat(unchanged.stillWritten(KEY, job, WAIT, QUEUED)).as("same pass").isFalse();
    unchanged.passDone();
    assertThat(unchanged.stillWritten(KEY, job, WAIT, QUEUED)).isTrue();
    unchanged.passDone();
    assertThat(unchanged.stillWritten(KEY, job, WAIT, QUEUED)).as("carried").isTrue();
  }

  @Test
  void anotherObjectDecisionOrQueueTimeIsNotWritten() {
    unchanged.written(KEY, job, WAIT, QUEUED);
    unchanged.passDone();
    assertThat(unchanged.stillWritten(KEY, aJob("a").build(), WAIT, QUEUED)).isFalse();
    assertThat(
            unchanged.stillWritten(
                KEY,
                job,
                new Decision.Wait(Reason.WaitingForCapacity, "n.", List.of(), 0, null),
                QUEUED))
        .isFalse();
    assertThat(unchanged.stillWritten(KEY, job, WAIT, QUEUED.plusSeconds(1))).isFalse();
  }

  @Test
  void aJobNotDecidedByOnePassIsForgottenByTheNext() {
    unchanged.written(KEY, job, WAIT, QUEUED);
    JobKey other = new JobKey("default", "b");
    BatchJob b = aJob("b").build();
    unchanged.written(other, b, WAIT, QUEUED);
    unchanged.passDone();
    assertThat(unchanged.stillWritten(other, b, WAIT, QUEUED)).isTrue(); // a not decided
    unchanged.passDone();
    assertThat(unchanged.stillWritten(KEY, job, WAIT, QUEUED)).isFalse();
    assertThat(unchanged.stillWritten(other, b, WAIT, QUEUED)).isTrue();
  }
}
