package io.octomy.batch.agent;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * What the executor persists per job in {@code state.json}: enough to re-adopt the process after a
 * restart (pid plus the process's own start time, which tells a reused pid apart) and to keep
 * reporting the outcome.
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer agent may add fields; an older one reads on
record JobState(
    RunKey key,
    List<String> command,
    Long pid,
    Instant processStart,
    RunPhase phase,
    Integer exitCode,
    String reason,
    String message,
    Instant startedAt,
    Instant finishedAt) {

  /**
   * Written before the process starts, so a crash right after starting cannot lead to a second
   * start.
   */
  static JobState intent(RunKey key, List<String> command, Instant now) {
    return new JobState(key, command, null, null, RunPhase.Running, null, null, null, now, null);
  }

  JobState running(long pid, Instant processStart) {
    return new JobState(
        key, command, pid, processStart, RunPhase.Running, null, null, null, startedAt, null);
  }

  JobState finished(Integer exitCode, String reason, String message, Instant at) {
    RunPhase phase =
        exitCode != null && exitCode == 0 && JobRecord.REASON_SUCCEEDED.equals(reason)
            ? RunPhase.Succeeded
            : RunPhase.Failed;
    return new JobState(
        key, command, pid, processStart, phase, exitCode, reason, message, startedAt, at);
  }

  JobRecord toRecord() {
    return new JobRecord(key, phase, exitCode, reason, message, pid, startedAt, finishedAt);
  }
}
