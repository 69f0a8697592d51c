package io.octomy.batch.visibility;

import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.ExpectedStart;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.function.Function;

/** Sentences saying how an expected end or start was reached, and how sure it is. */
final class StartBasis {

  private final LearntRunTimes runTimes;
  private final Instant now;
  private final Duration starvationAfter;

  StartBasis(LearntRunTimes runTimes, Instant now, Duration starvationAfter) {
    this.runTimes = runTimes;
    this.now = now;
    this.starvationAfter = starvationAfter;
  }

  /** E.g. "from 12 runs of solve", for the expected end of a job. */
  String ofEnd(JobView job) {
    LearntRunTimes.Basis b = runTimes.basis(job);
    String type = b.type();
    return switch (b.source()) {
      case MEASURED -> "from " + Wording.count(b.runs(), "run") + " of " + type;
      case OVERDUE ->
          "it has run longer than all "
              + Wording.count(b.runs(), "recorded run")
              + " of "
              + type
              + ", so it is given a tenth of its run so far";
      case NAMESPACE ->
          (type == null ? "it has no spec.type" : "no timed runs of " + type + " yet")
              + ": assumed "
              + Wording.duration(b.assumed())
              + ", the median of "
              + Wording.count(b.runs(), "run")
              + " in namespace "
              + job.namespace();
      case DEFAULT ->
          (type == null ? "it has no spec.type" : "no timed runs of " + type)
              + " and none in namespace "
              + job.namespace()
              + " yet: assumed "
              + Wording.duration(b.assumed());
      case DEADLINE ->
          "its spec.activeDeadlineSeconds stops it after "
              + Wording.duration(b.assumed())
              + ", sooner than its runs say";
    };
  }

  /**
   * What the forecast leaves out for a job that waits for capacity to be freed: jobs created later.
   * One that fits the freed room sooner may take it first, and only once this job has waited past
   * the starvation threshold are lower-priority jobs held back for it; without saying so, a stream
   * of small jobs kept a big job's answer at "in a few seconds" for minutes. Empty once it starves,
   * or when the forecast already reaches past that time.
   */
  private String untilStarving(JobView job, Instant expected) {
    Instant queued = job.queuedAt() == null ? now : job.queuedAt();
    Instant starving = queued.plus(starvationAfter);
    if (!starving.isAfter(now) || !starving.isAfter(expected)) {
      return "";
    }
    return "; until "
        + starving.truncatedTo(ChronoUnit.SECONDS)
        + " ("
        + Wording.duration(starvationAfter)
        + " after it was queued, the starvation threshold) a job created later that fits sooner"
        + " may go first";
  }

  /** How the expected start of a Queued job was reached, or why there is none. */
  String ofStart(
      Decision decision, Optional<ExpectedStart> start, Function<JobKey, Optional<JobView>> views) {
    if (decision instanceof Decision.Admit) {
      return "admitted by the next pass.";
    }
    if (decision.phase() != JobPhase.Queued) {
      return "will not start: " + decision.message();
    }
    if (start.isEmpty()) {
      return "not expected to start while nothing else changes: " + decision.message();
    }
    ExpectedStart s = start.get();
    StringBuilder b =
        new StringBuilder("expected ").append(Wording.at(s.at(), now)).append(" on node ");
    b.append(s.node());
    if (s.after() != null) {
      b.append(", when ").append(s.after().name()).append(" ends");
      views.apply(s.after()).ifPresent(v -> b.append(" (").append(ofEnd(v)).append(')'));
    }
    if (s.predictedEnds() > 1) {
      b.append("; it rests on ").append(s.predictedEnds()).append(" predicted run ends in a row");
    }
    if (s.after() != null && decision.reason() == Reason.WaitingForCapacity) {
      views.apply(s.job()).ifPresent(v -> b.append(untilStarving(v, s.at())));
    }
    return b.append('.').toString();
  }
}
