package io.octomy.batch.visibility;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The quantile, the remaining life of a running job, overdue jobs and the defaults. */
class LearntRunTimesTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final LearntRunTimes.JobType SOLVE = new LearntRunTimes.JobType("ns", "solve");

  static LearntRunTimes times(Map<JobKey, LearntRunTimes.JobFacts> facts) {
    return new LearntRunTimes(Map.of(SOLVE, List.of(60L, 300L, 120L, 600L, 240L)), facts, NOW);
  }

  static JobView job(String name, JobPhase phase) {
    return new JobView(
        "ns", name, 1, null, null, null, null, null, null, phase, "n", NOW, List.of());
  }

  @Test
  void aQueuedJobIsExpectedToRunTheMedianOfItsType() {
    LearntRunTimes t =
        times(Map.of(new JobKey("ns", "q"), new LearntRunTimes.JobFacts("solve", null)));
    assertThat(t.expectedRunTime(job("q", JobPhase.Queued))).isEqualTo(Duration.ofSeconds(240));
    assertThat(t.basis(job("q", JobPhase.Queued)))
        .isEqualTo(new LearntRunTimes.Basis(LearntRunTimes.Source.MEASURED, "solve", 5, null));
  }

  @Test
  void aRunningJobEndsAtTheMedianOfTheRunsLongerThanItsRunSoFar() {
    // Ran 200 s: the runs longer than that are 240, 300 and 600; their median is 300.
    LearntRunTimes t =
        times(
            Map.of(
                new JobKey("ns", "r"),
                new LearntRunTimes.JobFacts("solve", NOW.minusSeconds(200))));
    assertThat(t.expectedEnd(job("r", JobPhase.Running))).isEqualTo(NOW.plusSeconds(100));
  }

  @Test
  void aDeadlineShorterThanItsRunsBoundsARunningJobsEndAndAQueuedJobsRunTime() {
    // Ran 200 s of a 250 s deadline: stopped 50 s from now, sooner than the 100 s its runs say.
    LearntRunTimes t =
        times(
            Map.of(
                new JobKey("ns", "r"),
                new LearntRunTimes.JobFacts(
                    "solve", NOW.minusSeconds(200), Duration.ofSeconds(250)),
                new JobKey("ns", "q"),
                new LearntRunTimes.JobFacts("solve", null, Duration.ofSeconds(60)),
                new JobKey("ns", "long"),
                new LearntRunTimes.JobFacts("solve", null, Duration.ofHours(1))));
    assertThat(t.expectedEnd(job("r", JobPhase.Running))).isEqualTo(NOW.plusSeconds(50));
    assertThat(t.basis(job("r", JobPhase.Running)))
        .isEqualTo(
            new LearntRunTimes.Basis(
                LearntRunTimes.Source.DEADLINE, "solve", 0, Duration.ofSeconds(250)));
    assertThat(t.expectedRunTime(job("q", JobPhase.Queued))).isEqualTo(Duration.ofSeconds(60));
    assertThat(t.basis(job("q", JobPhase.Queued)).source())
        .isEqualTo(LearntRunTimes.Source.DEADLINE);
    // A deadline longer than the runs changes nothing.
    assertThat(t.expectedRunTime(job("long", JobPhase.Queued))).isEqualTo(Duration.ofSeconds(240));
    assertThat(t.basis(job("long", JobPhase.Queued)).source())
        .isEqualTo(LearntRunTimes.Source.MEASURED);
  }

  @Test
  void aJobPastEveryRecordedRunGetsATenthOfItsRunSoFar() {
    LearntRunTimes t =
        times(
            Map.of(
                new JobKey("ns", "r"),
                new LearntRunTimes.JobFacts("solve", NOW.minusSeconds(1000))));
    assertThat(t.expectedEnd(job("r", JobPhase.Running))).isEqualTo(NOW.plusSeconds(100));
    assertThat(t.basis(job("r", JobPhase.Running)).source())
        .isEqualTo(LearntRunTimes.Source.OVERDUE);
  }

  @Test
  void anOverdueJobGetsAtLeastTheMinimum() {
    LearntRunTimes t =
        new LearntRunTimes(
            Map.of(SOLVE, List.of(1L)),
            Map.of(
                new JobKey("ns", "r"), new LearntRunTimes.JobFacts("solve", NOW.minusSeconds(20))),
            NOW);
    assertThat(t.expectedEnd(job("r", JobPhase.Running)))
        .isEqualTo(NOW.plus(LearntRunTimes.OVERDUE_MINIMUM));
  }

  @Test
  void aTypeNeverTimedUsesTheNamespaceMedianAndSaysSo() {
    LearntRunTimes t =
        times(Map.of(new JobKey("ns", "m"), new LearntRunTimes.JobFacts("mesh", null)));
    assertThat(t.expectedRunTime(job("m", JobPhase.Queued))).isEqualTo(Duration.ofSeconds(240));
    assertThat(t.basis(job("m", JobPhase.Queued)))
        .isEqualTo(
            new LearntRunTimes.Basis(
                LearntRunTimes.Source.NAMESPACE, "mesh", 5, Duration.ofSeconds(240)));
  }

  @Test
  void aNamespaceWithoutTimedRunsUsesTheDefault() {
    LearntRunTimes t = new LearntRunTimes(Map.of(), Map.of(), NOW);
    assertThat(t.expectedRunTime(job("x", JobPhase.Queued)))
        .isEqualTo(LearntRunTimes.DEFAULT_RUN_TIME);
    assertThat(t.basis(job("x", JobPhase.Queued)).source())
        .isEqualTo(LearntRunTimes.Source.DEFAULT);
  }

  @Test
  void anAdmittedJobNotStartedYetIsExpectedToRunItsWholeMedianFromNow() {
    LearntRunTimes t =
        times(Map.of(new JobKey("ns", "a"), new LearntRunTimes.JobFacts("solve", null)));
    assertThat(t.expectedEnd(job("a", JobPhase.Admitted))).isEqualTo(NOW.plusSeconds(240));
  }
}
