package io.octomy.batch.controller;

import io.octomy.batch.vocabulary.JobPhase;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Pure: one run of a gang, read from its replicas' runs. It runs once every replica started,
 * succeeds when all exited 0, and fails when one failed: that replica's end is the gang's (its exit
 * code, its reason, so a replica lost with its node or agent is retried without counting), and the
 * other replicas are stopped because the job ended. Usage is per replica: each resource's peak is
 * the largest any replica reached, set against the request, which is per replica too.
 */
final class GangRun {

  private GangRun() {}

  /**
   * @param replicas each replica's run in index order
   * @param nodes each replica's node in index order
   * @param deleting the job is being deleted: it ends only once no replica runs, so that its place
   *     (and its finalizer) is held until every replica's agent stopped its work, as a job's is
   */
  static RunObservation of(List<RunObservation> replicas, List<String> nodes, boolean deleting) {
    Map<String, Long> peaks = new HashMap<>();
    replicas.forEach(r -> r.peakUsage().forEach((k, v) -> peaks.merge(k, v, Math::max)));
    int failed = failedReplica(replicas);
    boolean anyRuns = replicas.stream().anyMatch(r -> r.phase() == JobPhase.Running);
    if (failed >= 0 && !(deleting && anyRuns)) {
      RunObservation f = replicas.get(failed);
      String said =
          "Replica "
              + failed
              + " of "
              + replicas.size()
              + " (node "
              + nodes.get(failed)
              + ") "
              + (f.exitCode() != null ? "exited with code " + f.exitCode() : "ended")
              + (f.reason() != null && !f.reason().equals(JobPhase.Failed.name())
                  ? " (" + f.reason() + ")"
                  : "")
              + ", so the gang ends and its other replicas are stopped."
              + (f.detail() == null || f.detail().isBlank() ? "" : " " + f.detail());
      return new RunObservation(
          JobPhase.Failed,
          f.exitCode(),
          f.reason(),
          latestStart(replicas),
          f.finishedAt(),
          peaks,
          said,
          f.output());
    }
    RunObservation first = replicas.get(0);
    boolean allDone = replicas.stream().allMatch(r -> r.phase() == JobPhase.Succeeded);
    if (allDone) {
      Instant finished =
          replicas.stream()
              .map(RunObservation::finishedAt)
              .filter(Objects::nonNull)
              .max(Instant::compareTo)
              .orElse(null);
      return new RunObservation(
          JobPhase.Succeeded,
          0,
          null,
          latestStart(replicas),
          finished,
          peaks,
          null,
          first.output());
    }
    boolean allStarted =
        replicas.stream()
            .allMatch(r -> r.phase() == JobPhase.Running || r.phase() == JobPhase.Succeeded);
    if (allStarted) {
      return new RunObservation(
          JobPhase.Running, null, null, latestStart(replicas), null, peaks, null, first.output());
    }
    return new RunObservation(JobPhase.Admitted, null, null, null, null, peaks);
  }

  /**
   * The replica whose failure ends the gang: the first that exited non-zero, else the first that
   * failed otherwise (lost, refused); -1 when none failed. An exit says something about the job, so
   * it decides over a loss seen in the same pass.
   */
  private static int failedReplica(List<RunObservation> replicas) {
    int any = -1;
    for (int i = 0; i < replicas.size(); i++) {
      RunObservation r = replicas.get(i);
      if (r.phase() != JobPhase.Failed) {
        continue;
      }
      if (r.exitCode() != null && r.exitCode() != 0) {
        return i;
      }
      if (any < 0) {
        any = i;
      }
    }
    return any;
  }

  /** When the gang started: when its last replica did (it runs once all have). */
  private static Instant latestStart(List<RunObservation> replicas) {
    return replicas.stream()
        .map(RunObservation::startedAt)
        .filter(Objects::nonNull)
        .max(Instant::compareTo)
        .orElse(null);
  }
}
