package io.octomy.batch.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a new {@link ProcessExecutor} makes of each job a previous one left in its state directory.
 *
 * <p><b>Never twice.</b> The state file is written before the process starts, so a job with a state
 * file has been started (or was about to be). If the agent dies between writing that intent and
 * recording the pid, the next one looks for the job's wrapper among the running processes (its
 * arguments name the job's own {@code exitcode} file, so it cannot be mistaken for another) and
 * re-adopts it; a job whose {@code exitcode} file exists is finished from it. Only when neither is
 * found is the job reported {@code AgentLost}, rather than run again: at most once, never twice.
 *
 * <p><b>Re-adoption.</b> Each running job whose pid is alive with the same process start time
 * ({@link ProcessLiveness#sameStart}, within {@link ProcessLiveness#START_TIME_TOLERANCE}) is
 * re-adopted. A job whose process is gone is finished from its {@code exitcode} file ({@link
 * JobWrapper}), or reported {@code AgentLost} without one.
 */
final class JobRecovery {

  /**
   * What becomes of one job found in the state directory; the executor knows it as {@code state}.
   */
  sealed interface Recovered permits Settled, Readopt, Ended {
    JobState state();
  }

  /** Not running: known as it is. */
  record Settled(JobState state) implements Recovered {}

  /** Its process still runs: the executor watches it as it would one it started. */
  record Readopt(JobState state, ProcessHandle process) implements Recovered {}

  /**
   * Its process is gone (or was never found): the executor records this end, at {@code endedAt}
   * when it is known (the exit code file was written then), else when it is found.
   */
  record Ended(JobState state, Integer exitCode, String reason, String message, Instant endedAt)
      implements Recovered {

    Ended(JobState state, Integer exitCode, String reason, String message) {
      this(state, exitCode, reason, message, null);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(JobRecovery.class);

  private final JobStateStore store;

  JobRecovery(JobStateStore store) {
    this.store = store;
  }

  Recovered recover(Path file) {
    JobState s;
    try {
      s = store.read(file);
    } catch (IOException | RuntimeException e) {
      // Writes are atomic, so this is outside damage; the job did start, so it must not rerun.
      RunKey key = store.keyOf(file);
      LOG.warn("unreadable job state {}: {}", file, e.toString());
      JobState lost = JobState.intent(key, List.of(), null);
      return new Ended(
          lost,
          null,
          JobRecord.REASON_AGENT_LOST,
          "the agent's record of this job is unreadable ("
              + e.getMessage()
              + "); it is not started again");
    }
    RunKey key = s.key();
    if (s.phase() != RunPhase.Running) {
      return new Settled(s);
    }
    if (s.pid() == null) {
      return recoverUnrecordedStart(key, s);
    }
    Optional<ProcessHandle> handle =
        ProcessHandle.of(s.pid())
            .filter(h -> !ProcessLiveness.hasExited(h))
            .filter(h -> ProcessLiveness.sameStart(h, s.processStart()));
    if (handle.isPresent()) {
      return new Readopt(s, handle.get());
    }
    return finishFromExitCode(key, s);
  }

  /**
   * The previous agent wrote the intent but stopped before recording the pid: the process may never
   * have started, may be running, or may have ended. Its exit code file or its wrapper (found by
   * the arguments, which name that file) tells which; with neither it is lost.
   */
  private Recovered recoverUnrecordedStart(RunKey key, JobState s) {
    if (store.readExitCode(key) != null) {
      return finishFromExitCode(key, s);
    }
    Optional<ProcessHandle> wrapper = JobWrapper.findWrapper(store.exitCodeFile(key).toString());
    if (wrapper.isPresent()) {
      JobState running =
          s.running(wrapper.get().pid(), wrapper.get().info().startInstant().orElse(null));
      try {
        store.update(running);
      } catch (UncheckedIOException e) {
        LOG.error("cannot persist the re-adoption of job {}: {}", key, e.getMessage());
      }
      return new Readopt(running, wrapper.get());
    }
    // An exit code may have landed while we looked: the wrapper writes it just before exiting.
    if (store.readExitCode(key) != null) {
      return finishFromExitCode(key, s);
    }
    return new Ended(
        s,
        null,
        JobRecord.REASON_AGENT_LOST,
        "the agent stopped before it could record the process, and no process of this job is"
            + " running now; it is not started again");
  }

  private Recovered finishFromExitCode(RunKey key, JobState s) {
    Integer code = store.readExitCode(key);
    if (code != null) {
      // It ended while no agent ran: its run lasted until the wrapper wrote the code, not until
      // this restart (a run time that includes the agent's downtime would skew its type's record).
      return new Ended(
          s,
          code,
          JobWrapper.reasonFor(code),
          JobWrapper.messageFor(code),
          store.exitCodeWritten(key));
    }
    return new Ended(
        s,
        null,
        JobRecord.REASON_AGENT_LOST,
        "process " + s.pid() + " ended while the agent was not running and recorded no exit code");
  }
}
