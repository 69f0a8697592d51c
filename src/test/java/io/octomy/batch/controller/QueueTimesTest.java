package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Jobs created within the same second keep their creation order, to the microsecond. */
class QueueTimesTest {

  private static final Instant NOW = Instant.parse("2026-03-01T12:00:30Z");

  private static BatchJob created(String name, String second, long resourceVersion) {
    BatchJob j = aJob(name).build();
    j.getMetadata().setCreationTimestamp(second);
    j.getMetadata().setResourceVersion(Long.toString(resourceVersion));
    return j;
  }

  private static Instant at(Map<JobKey, Instant> times, String name) {
    return times.get(new JobKey("default", name));
  }

  @Test
  void jobsOfOneSecondAreOrderedAsTheServerCreatedThemNotByName() {
    Map<JobKey, Instant> times =
        new QueueTimes()
            .of(
                List.of(
                    created("zeta", "2026-03-01T12:00:00Z", 101),
                    created("alpha", "2026-03-01T12:00:00Z", 102),
                    created("mid", "2026-03-01T12:00:00Z", 103),
                    created("later", "2026-03-01T12:00:01Z", 104)),
                NOW);
    assertThat(at(times, "zeta")).isEqualTo("2026-03-01T12:00:00Z");
    assertThat(at(times, "alpha")).isEqualTo("2026-03-01T12:00:00.000001Z");
    assertThat(at(times, "mid")).isEqualTo("2026-03-01T12:00:00.000002Z");
    assertThat(at(times, "later")).isEqualTo("2026-03-01T12:00:01Z");
  }

  @Test
  void aWrittenQueueTimeStandsAndNewcomersOfItsSecondComeAfterIt() {
    BatchJob first = created("zeta", "2026-03-01T12:00:00Z", 200);
    first.setStatus(new BatchJobStatus());
    first.getStatus().setQueuedAt("2026-03-01T12:00:00.000004Z");
    Map<JobKey, Instant> times =
        new QueueTimes().of(List.of(created("alpha", "2026-03-01T12:00:00Z", 201), first), NOW);
    assertThat(at(times, "zeta")).isEqualTo("2026-03-01T12:00:00.000004Z");
    assertThat(at(times, "alpha")).isEqualTo("2026-03-01T12:00:00.000005Z");
  }

  /** Job zeta (one uid throughout) at a resourceVersion, its queue time written. */
  private static BatchJob zetaQueuedAt(long resourceVersion, String queuedAt) {
    BatchJob job = created("zeta", "2026-03-01T12:00:00Z", resourceVersion);
    job.getMetadata().setUid("uid-zeta");
    job.setStatus(new BatchJobStatus());
    job.getStatus().setQueuedAt(queuedAt);
    return job;
  }

  @Test
  void aQueueTimeKeptFromTheCallBeforeIsReadAgainWhenItsTextChanged() {
    QueueTimes queueTimes = new QueueTimes();
    BatchJob job = zetaQueuedAt(300, "2026-03-01T12:00:00.000004Z");
    assertThat(at(queueTimes.of(List.of(job), NOW), "zeta"))
        .isEqualTo("2026-03-01T12:00:00.000004Z");

    BatchJob edited = zetaQueuedAt(301, "2026-03-01T12:00:07.000001Z");
    assertThat(at(queueTimes.of(List.of(edited), NOW), "zeta"))
        .isEqualTo("2026-03-01T12:00:07.000001Z");
    assertThat(at(queueTimes.of(List.of(job), NOW), "zeta"))
        .isEqualTo("2026-03-01T12:00:00.000004Z");
  }

  @Test
  void writtenToTheMicrosecondAndReadBack() {
    Instant t = Instant.parse("2026-03-01T12:00:00.000002Z");
    assertThat(Times.formatMicros(t)).isEqualTo("2026-03-01T12:00:00.000002Z");
    assertThat(Times.parse(Times.formatMicros(t))).isEqualTo(t);
    assertThat(Times.formatMicros(Instant.parse("2026-03-01T12:00:00Z")))
        .isEqualTo("2026-03-01T12:00:00Z");
  }
}
