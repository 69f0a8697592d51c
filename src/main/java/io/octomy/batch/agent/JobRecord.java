package io.octomy.batch.agent;

import io.octomy.batch.api.NodeJob;
import java.time.Instant;

/**
 * The executor's view of one job, for the reporter's {@code BatchNode.status.jobs}.
 *
 * @param key the job
 * @param phase Running, Succeeded or Failed
 * @param exitCode the command's exit code once known; null while running or when it was lost
 * @param reason null while running; otherwise one of the {@code REASON_*} codes
 * @param message a sentence explaining a failure, null otherwise
 * @param pid the wrapper process to measure (its tree holds the command); null if never started
 * @param startedAt when the agent started the process
 * @param finishedAt when the agent saw it end (or found it gone)
 */
public record JobRecord(
    RunKey key,
    RunPhase phase,
    Integer exitCode,
    String reason,
    String message,
    Long pid,
    Instant startedAt,
    Instant finishedAt) {

  /** Exit code 0. */
  public static final String REASON_SUCCEEDED = "Succeeded";

  /** A non-zero exit code (including 128+N for a command killed by signal N). */
  public static final String REASON_FAILED = "Failed";

  /**
   * The process ended and the agent could not learn how: gone after a restart, no exit code
   * recorded.
   */
  public static final String REASON_AGENT_LOST = NodeJob.REASON_AGENT_LOST;

  /** Stopped by the agent because the job was deleted or cancelled. */
  public static final String REASON_STOPPED = NodeJob.REASON_STOPPED;

  /** The process could not be started (missing program, bad working directory, ...). */
  public static final String REASON_START_FAILED = "StartFailed";

  /** True once the job can no longer change. */
  public boolean finished() {
    return phase != RunPhase.Running;
  }
}
