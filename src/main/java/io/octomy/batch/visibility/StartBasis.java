package io.octomy.batch.visibility;

import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.ExpectedStart;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;

/** Sentences saying how an expected end or start was reached, and how sure it is. */
final class StartBasis {

  private final LearntRunTimes runTimes;
  private final Instant now;

  StartBasis(LearntRunTimes runTimes, Instant now) {
    this.runTimes = runTimes;
    this.now = now;
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
    };
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
    return b.append('.').toString();
  }
}
