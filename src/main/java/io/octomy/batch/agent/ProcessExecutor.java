package io.octomy.batch.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs jobs as local processes for a node whose executor is {@code Process}.
 *
 * <p>Each job gets {@code STATE/jobs/<namespace>/<name>/<uid>/} holding {@code state.json} (pid,
 * the process's start time, phase, exit code, times; replaced atomically), {@code output.log}
 * (stdout and stderr together, appended) and, unless the job names a working directory, a {@code
 * work} directory to run in.
 *
 * <p><b>Failure handling.</b> A job is started at most once, never twice, whatever the agent
 * survives: {@link #start} writes the job's state file, forced to disk, before its process starts
 * (later records, the pid and the outcome, are replaced without waiting for the disk: see {@link
 * JobStateStore#update}), and a restarted agent re-adopts the jobs that still run and reports the
 * true exit code of those that ended while it was away ({@link JobRecovery}), which the job's
 * {@code sh} wrapper recorded ({@link JobWrapper}). An adopted process is not this JVM's child, and
 * once it ends it may linger as a zombie until some init reaps it (a container whose PID 1 never
 * reaps keeps it forever), which {@link ProcessHandle#onExit()} would wait for; so adopted
 * processes are polled with {@link ProcessLiveness#hasExited} every {@link #ADOPTED_POLL} instead.
 * A stop ends the job's whole process tree ({@link #stop(RunKey, Duration)}), and the job is
 * recorded stopped only once every process of the tree is gone, even when its wrapper dies first:
 * that record is what releases the job's place to the next job.
 *
 * <p>Thread-safe. Exit callbacks run on JDK threads and take the same lock as the public methods.
 */
public final class ProcessExecutor implements AutoCloseable {

  /** How often re-adopted processes are checked for having ended. */
  static final Duration ADOPTED_POLL = Duration.ofMillis(250);

  /** Grace period of {@link #stop(RunKey)} before the process tree is killed. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(ProcessExecutor.class);

  private final JobStateStore store;
  private final Clock clock;
  private final Map<RunKey, JobState> states = new LinkedHashMap<>();
  private final Map<RunKey, ProcessHandle> live = new HashMap<>();
  private final Map<RunKey, CompletableFuture<JobRecord>> finishes = new HashMap<>();
  private final Set<RunKey> stopping = new HashSet<>();

  /**
   * Jobs being stopped whose wrapper ended before the rest of their tree, with the wrapper (null
   * when not our child): recorded only once {@link #stop} has seen every process gone, since the
   * end of a job is what lets the controller hand its place to another.
   */
  private final Map<RunKey, Process> endedBeforeTree = new HashMap<>();

  private final Set<RunKey> treeGone = new HashSet<>();
  private final Set<RunKey> adopted = new HashSet<>();
  private ScheduledExecutorService adoptedWatch;
  private boolean closed;

  /**
   * An executor on {@code stateDir} using the system clock; re-adopts what a previous one left
   * running.
   */
  public ProcessExecutor(Path stateDir) {
    this(stateDir, Clock.systemUTC());
  }

  /**
   * @param stateDir the agent's state directory (jobs live under {@code stateDir/jobs})
   * @param clock source of {@code startedAt} and {@code finishedAt}
   */
  public ProcessExecutor(Path stateDir, Clock clock) {
    this.store = new JobStateStore(stateDir);
    this.clock = clock;
    JobRecovery recovery = new JobRecovery(store);
    synchronized (this) {
      for (Path file : store.stateFiles()) {
        JobRecovery.Recovered found = recovery.recover(file);
        RunKey key = found.state().key();
        states.put(key, found.state());
        if (found instanceof JobRecovery.Readopt readopt) {
          adopt(key, readopt.process());
        } else if (found instanceof JobRecovery.Ended ended) {
          finish(
              key,
              ended.exitCode(),
              ended.reason(),
              ended.message(),
              ended.endedAt() != null ? ended.endedAt() : clock.instant());
        }
      }
    }
  }

  /**
   * Starts a job unless it was ever started by an executor on this state directory. Starts of
   * different jobs may run at once: the key is claimed under the lock, and the disk writes and the
   * process start happen outside it.
   *
   * @return true if this call started it; false if it was already known (running or finished)
   * @throws UncheckedIOException if the state directory cannot be written (nothing is started)
   */
  public boolean start(LaunchSpec spec) {
    RunKey key = spec.key();
    JobState intent;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the executor is closed");
      }
      if (states.containsKey(key)
          || Files.exists(store.dir(key).resolve(JobStateStore.STATE_FILE))) {
        return false;
      }
      intent = JobState.intent(key, spec.command(), clock.instant());
      states.put(key, intent); // claimed: a second start of this key returns false from here on
    }
    try {
      store.write(intent);
    } catch (UncheckedIOException e) {
      synchronized (this) {
        states.remove(key);
      }
      throw e;
    }
    Process process;
    try {
      // A relative workingDir is the job's own: under its fresh work directory, never wherever
      // the agent happens to run.
      Path workDir =
          spec.workingDir() == null
              ? store.workDir(key)
              : store.workDir(key).resolve(spec.workingDir());
      process = JobWrapper.launch(spec, workDir, store.exitCodeFile(key), store.logFile(key));
    } catch (IOException | RuntimeException e) {
      // RuntimeException: the JDK refuses an environment or path it cannot pass (a NUL, a name
      // with '='); the job failed to start, it must not stay Running with no process behind it.
      synchronized (this) {
        finish(
            key,
            null,
            JobRecord.REASON_START_FAILED,
            "could not start " + spec.command().get(0) + ": " + e.getMessage());
      }
      return true;
    }
    JobState running =
        intent.running(process.pid(), process.toHandle().info().startInstant().orElse(null));
    // On disk before anyone can stop or finish it, so the outcome is never overwritten by this.
    store.update(running);
    synchronized (this) {
      states.put(key, running);
      live.put(key, process.toHandle());
    }
    process.onExit().thenAccept(p -> exited(key, p));
    return true;
  }

  /** The record of one job, if this executor knows it. */
  public synchronized Optional<JobRecord> record(RunKey key) {
    return Optional.ofNullable(states.get(key)).map(JobState::toRecord);
  }

  /**
   * Every job's current record, ordered by namespace, name and uid: the reporter's {@code
   * status.jobs}.
   */
  public synchronized List<JobRecord> records() {
    return states.values().stream()
        .map(JobState::toRecord)
        .sorted(
            Comparator.comparing((JobRecord r) -> r.key().namespace())
                .thenComparing(r -> r.key().name())
                .thenComparing(r -> r.key().uid())
                .thenComparingInt(r -> r.key().run())
                .thenComparingInt(r -> r.key().replica()))
        .toList();
  }

  /** Completes with the final record when the job finishes (at once if it has). */
  public synchronized CompletableFuture<JobRecord> whenFinished(RunKey key) {
    if (!states.containsKey(key)) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("unknown job " + key));
    }
    CompletableFuture<JobRecord> f = finishes.computeIfAbsent(key, k -> new CompletableFuture<>());
    JobState s = states.get(key);
    if (s.phase() != RunPhase.Running) {
      f.complete(s.toRecord());
    }
    return f.copy();
  }

  /** The job's output file (stdout and stderr). */
  public Path logFile(RunKey key) {
    return store.logFile(key);
  }

  /** Where an executor with this state directory keeps a job's output file. */
  public static Path logFile(Path stateDir, RunKey key) {
    return JobStateStore.logFile(JobStateStore.jobsDir(stateDir), key);
  }

  /** {@link #stop(RunKey, Duration)} with {@link #DEFAULT_GRACE}. */
  public boolean stop(RunKey key) {
    return stop(key, DEFAULT_GRACE);
  }

  /**
   * Stops a running job's whole process tree: SIGTERM to every process, then SIGKILL to those still
   * alive after {@code grace}. Returns once the job is recorded Failed with reason {@code Stopped}
   * (or finished on its own meanwhile). A process that left the tree (setsid and double fork) is
   * beyond reach; the Pod executor contains such jobs, this one cannot.
   *
   * @return false if the job is not running here
   */
  public boolean stop(RunKey key, Duration grace) {
    ProcessHandle root;
    synchronized (this) {
      root = live.get(key);
      if (root == null) {
        return false;
      }
      stopping.add(key);
    }
    // Collect the tree before signalling: once the wrapper dies its children are re-parented.
    List<ProcessHandle> tree = ProcessLiveness.tree(root);
    tree.forEach(ProcessHandle::destroy);
    if (!ProcessLiveness.awaitAll(tree, grace)) {
      List<ProcessHandle> again = new ArrayList<>(tree);
      again.addAll(ProcessLiveness.tree(root)); // whatever it forked during the grace period
      again.stream()
          .filter(h -> !ProcessLiveness.hasExited(h))
          .forEach(ProcessHandle::destroyForcibly);
      ProcessLiveness.awaitAll(again, Duration.ofSeconds(5));
    }
    Process wrapper;
    synchronized (this) {
      treeGone.add(key);
      wrapper = endedBeforeTree.remove(key);
    }
    // The tree is dead: record the stop now, with the wrapper's status if it was seen to end (an
    // adopted process's callback may come seconds late; exited() ignores a second call).
    exited(key, wrapper);
    return true;
  }

  /**
   * Removes a finished job's files and record. Only for jobs whose BatchJob is deleted: a forgotten
   * key would be started again by {@link #start}.
   *
   * @throws IllegalStateException if the job is still running
   */
  public synchronized void forget(RunKey key) {
    JobState s = states.get(key);
    if (s != null && s.phase() == RunPhase.Running) {
      throw new IllegalStateException("job " + key + " is still running; stop it first");
    }
    store.delete(key);
    states.remove(key);
    finishes.remove(key);
  }

  /**
   * Detaches from every job without stopping any: processes keep running and the next executor on
   * this state directory re-adopts them, as after an agent restart.
   */
  @Override
  public synchronized void close() {
    closed = true;
    if (adoptedWatch != null) {
      adoptedWatch.shutdownNow();
    }
  }

  private void adopt(RunKey key, ProcessHandle handle) {
    LOG.info("re-adopted job {} (pid {})", key, handle.pid());
    live.put(key, handle);
    adopted.add(key);
    if (adoptedWatch == null) {
      adoptedWatch =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "octomy-adopted-jobs");
                t.setDaemon(true);
                return t;
              });
      adoptedWatch.scheduleWithFixedDelay(
          this::pollAdopted,
          ADOPTED_POLL.toMillis(),
          ADOPTED_POLL.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  private void pollAdopted() {
    List<Map.Entry<RunKey, ProcessHandle>> watched;
    synchronized (this) {
      watched =
          adopted.stream().filter(live::containsKey).map(k -> Map.entry(k, live.get(k))).toList();
    }
    for (Map.Entry<RunKey, ProcessHandle> e : watched) {
      try {
        if (ProcessLiveness.hasExited(e.getValue())) {
          exited(e.getKey(), null);
        }
      } catch (RuntimeException ex) {
        // Keep watching the others; a scheduled task that throws is never run again.
        LOG.warn("cannot check adopted job {}: {}", e.getKey(), ex.toString());
      }
    }
  }

  /**
   * Exit of a process: {@code own} is the Process when this executor started it (null when
   * adopted).
   */
  private synchronized void exited(RunKey key, Process own) {
    if (closed) {
      return; // detached: the next executor reports this exit from the exitcode file
    }
    JobState s = states.get(key);
    if (s == null || s.phase() != RunPhase.Running) {
      return;
    }
    if (stopping.contains(key) && !treeGone.contains(key)) {
      // The wrapper went first (SIGTERM reached it before its command, which may take its time):
      // the job is not stopped until every process of it is.
      endedBeforeTree.put(key, own);
      return;
    }
    Integer code = store.readExitCode(key);
    if (code == null && own != null) {
      code = own.exitValue(); // the wrapper itself was killed; the JVM reports 128 + signal
    }
    if (stopping.contains(key)) {
      finish(key, code, JobRecord.REASON_STOPPED, "stopped by the agent");
    } else if (code == null) {
      finish(
          key,
          null,
          JobRecord.REASON_AGENT_LOST,
          "process " + s.pid() + " ended without recording an exit code (killed outright?)");
    } else {
      finish(key, code, JobWrapper.reasonFor(code), JobWrapper.messageFor(code));
    }
  }

  private void finish(RunKey key, Integer code, String reason, String message) {
    finish(key, code, reason, message, clock.instant());
  }

  private void finish(RunKey key, Integer code, String reason, String message, Instant at) {
    JobState done = states.get(key).finished(code, reason, message, at);
    try {
      store.update(done);
    } catch (UncheckedIOException e) {
      // Keep reporting the outcome from memory; the next restart re-derives it from exitcode.
      LOG.error("cannot persist the end of job {}: {}", key, e.getMessage());
    }
    states.put(key, done);
    live.remove(key);
    adopted.remove(key);
    stopping.remove(key);
    treeGone.remove(key);
    endedBeforeTree.remove(key);
    CompletableFuture<JobRecord> f = finishes.get(key);
    if (f != null) {
      f.complete(done.toRecord());
    }
  }
}
