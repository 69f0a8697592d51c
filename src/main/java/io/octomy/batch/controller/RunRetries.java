package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.Set;

/**
 * Pure: whether a run that ended without success is run again ({@code spec.backoffLimit}). A run
 * that exited non-zero is retried while the failed runs stay within the limit, and counts; a run
 * lost with its agent or node is retried without counting, as it said nothing about the job (only
 * when the job asks for retries at all: without a backoffLimit every run is final). A run that was
 * stopped (the job deleted, its deadline passed) or never started is final.
 */
final class RunRetries {

  /** How a run ended, as far as retrying goes. */
  enum Retry {
    /** Final: the job ends with this run. */
    NONE,
    /** Exited non-zero within the limit: retried, and counted in {@code status.failedRuns}. */
    COUNTED,
    /** Lost with its node or agent: retried, not counted. */
    LOST
  }

  /** Reasons of runs lost with their node or agent: the RunFollower's and the agent's. */
  static final Set<String> LOST_REASONS = Set.of(NodeJob.REASON_AGENT_LOST, "NodeDeleted");

  private RunRetries() {}

  static Retry of(BatchJob job, RunObservation run) {
    if (run == null
        || run.phase() != JobPhase.Failed
        || job.getMetadata().getDeletionTimestamp() != null) {
      return Retry.NONE;
    }
    BatchJobSpec spec = job.getSpec();
    if (spec == null || spec.retries() == 0) {
      return Retry.NONE; // no backoffLimit: every run is final, as before retries existed
    }
    if (run.reason() != null && LOST_REASONS.contains(run.reason())) {
      return Retry.LOST;
    }
    if (run.exitCode() == null || run.exitCode() == 0) {
      return Retry.NONE; // refused, stopped or deleted: nothing ran to a non-zero exit
    }
    BatchJobStatus s = job.getStatus();
    int failed = s == null || s.getFailedRuns() == null ? 0 : s.getFailedRuns();
    return failed < spec.retries() ? Retry.COUNTED : Retry.NONE;
  }
}
