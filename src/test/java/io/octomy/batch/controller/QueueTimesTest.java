package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.List;
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

  /** The queue time of the job named {@code name} among {@code jobs}, with the times they got. */
  private static Instant at(List<BatchJob> jobs, List<Instant> times, String name) {
    assertThat(times).hasSameSizeAs(jobs);
    for (int i = 0; i < jobs.size(); i++) {
      if (jobs.get(i).getMetadata().getName().equals(name)) {
        return times.get(i);
      }
    }
    throw new AssertionError("no job " + name);
  }

  /** The queue time {@code times} gives the only job of a call. */
  private static Instant only(QueueTimes times, BatchJob job) {
    return at(List.of(job), times.of(List.of(job), NOW), job.getMetadata().getName());
  }

  @Test
  void jobsOfOneSecondAreOrderedAsTheServerCreatedThemNotByName() {
    List<BatchJob> jobs =
        List.of(
            created("zeta", "2026-03-01T12:00:00Z", 101),
            created("alpha", "2026-03-01T12:00:00Z", 102),
            created("mid", "2026-03-01T12:00:00Z", 103),
            created("later", "2026-03-01T12:00:01Z", 104));
    List<Instant> times = new QueueTimes().of(jobs, NOW);
    assertThat(at(jobs, times, "zeta")).isEqualTo("2026-03-01T12:00:00Z");
    assertThat(at(jobs, times, "alpha")).isEqualTo("2026-03-01T12:00:00.000001Z");
    assertThat(at(jobs, times, "mid")).isEqualTo("2026-03-01T12:00:00.000002Z");
    assertThat(at(jobs, times, "later")).isEqualTo("2026-03-01T12:00:01Z");
  }

  @Test
  void aWrittenQueueTimeStandsAndNewcomersOfItsSecondComeAfterIt() {
    BatchJob first = created("zeta", "2026-03-01T12:00:00Z", 200);
    first.setStatus(new BatchJobStatus());
    first.getStatus().setQueuedAt("2026-03-01T12:00:00.000004Z");
    List<BatchJob> jobs = List.of(created("alpha", "2026-03-01T12:00:00Z", 201), first);
    List<Instant> times = new QueueTimes().of(jobs, NOW);
    assertThat(at(jobs, times, "zeta")).isEqualTo("2026-03-01T12:00:00.000004Z");
    assertThat(at(jobs, times, "alpha")).isEqualTo("2026-03-01T12:00:00.000005Z");
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
    assertThat(only(queueTimes, job)).isEqualTo("2026-03-01T12:00:00.000004Z");

    BatchJob edited = zetaQueuedAt(301, "2026-03-01T12:00:07.000001Z");
    assertThat(only(queueTimes, edited)).isEqualTo("2026-03-01T12:00:07.000001Z");
    assertThat(only(queueTimes, job)).isEqualTo("2026-03-01T12:00:00.000004Z");
  }

  @Test
  void aJobGoneAndBackUnderItsUidIsReadAgainAndNewcomersStillQueueAfterTheWritten() {
    QueueTimes queueTimes = new QueueTimes();
    BatchJob zeta = zetaQueuedAt(400, "2026-03-01T12:00:00.000004Z");
    BatchJob alpha = created("alpha", "2026-03-01T12:00:00Z", 401);
    alpha.getMetadata().setUid("uid-alpha");
    alpha.setStatus(new BatchJobStatus());
    alpha.getStatus().setQueuedAt("2026-03-01T12:00:00.000009Z");
    queueTimes.of(List.of(zeta, alpha), NOW);
    // zeta leaves (its read is dropped), comes back with another written time, and a newcomer of
    // the same second queues after the latest written one.
    queueTimes.of(List.of(alpha), NOW);
    BatchJob back = zetaQueuedAt(402, "2026-03-01T12:00:00.000011Z");
    BatchJob newcomer = created("mid", "2026-03-01T12:00:00Z", 403);
    List<BatchJob> jobs = List.of(newcomer, alpha, back);
    List<Instant> times = queueTimes.of(jobs, NOW);
    assertThat(at(jobs, times, "zeta")).isEqualTo("2026-03-01T12:00:00.000011Z");
    assertThat(at(jobs, times, "alpha")).isEqualTo("2026-03-01T12:00:00.000009Z");
    assertThat(at(jobs, times, "mid")).isEqualTo("2026-03-01T12:00:00.000012Z");
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
