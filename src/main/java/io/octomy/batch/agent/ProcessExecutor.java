package io.octomy.batch.agent;

import java.io.File;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

/**
 * Runs jobs as local processes for a node whose executor is {@code Process}.
 *
 * <p>Each job gets {@code STATE/jobs/<namespace>/<name>/<uid>/} holding {@code state.json} (pid,
 * the process's start time, phase, exit code, times; replaced atomically), {@code output.log}
 * (stdout and stderr together, appended) and, unless the job names a working directory, a {@code
 * work} directory to run in.
 *
 * <p><b>Never twice.</b> The state file is written before the process starts, so a job with a state
 * file has been started (or was about to be). If the agent dies between writing that intent and
 * recording the pid, the next one looks for the job's wrapper among the running processes (its
 * arguments name the job's own {@code exitcode} file, so it cannot be mistaken for another) and
 * re-adopts it; a job whose {@code exitcode} file exists is finished from it. Only when neither is
 * found is the job reported {@code AgentLost}, rather than run again: at most once, never twice.
 *
 * <p><b>Exit codes across restarts.</b> A restarted agent is not the parent of processes it
 * re-adopts, so it cannot {@code waitpid} them. The command therefore runs under a POSIX {@code sh}
 * wrapper that stays its parent, waits for it and writes {@code $?} to the job's {@code exitcode}
 * file (temp file + {@code mv}, so it is whole or absent) before exiting with the same code. The
 * wrapper passes the command as {@code "$@"} to {@code env}, so no argument is ever re-parsed by
 * the shell and the program is found on PATH like an exec would. The file is written by the job's
 * own process tree and survives the agent, so an exit that happens while no agent runs is still
 * reported with its true code. A wrapper killed outright (SIGKILL, OOM killer) records nothing:
 * that job is reported {@code AgentLost}, meaning "ended, and the agent could not learn how". This
 * needs {@code /bin/sh}: Linux and macOS, not Windows.
 *
 * <p><b>Re-adoption.</b> A new executor on the same state directory re-adopts each running job
 * whose pid is alive with the same process start time. Start times are compared within {@link
 * #START_TIME_TOLERANCE}: Linux derives them from the boot time in {@code /proc/stat}, which two
 * JVMs can read a second apart; a pid being reused within that window is not a realistic risk. A
 * job whose process is gone is finished from its {@code exitcode} file, or reported {@code
 * AgentLost} without one. An adopted process is not this JVM's child, and once it ends it may
 * linger as a zombie until some init reaps it (a container whose PID 1 never reaps keeps it
 * forever), which {@link ProcessHandle#onExit()} would wait for; so adopted processes are polled
 * with {@link #hasExited} every {@link #ADOPTED_POLL} instead.
 *
 * <p>Thread-safe. Exit callbacks run on JDK threads and take the same lock as the public methods.
 */
public final class ProcessExecutor implements AutoCloseable {

  /**
   * How far apart two readings of one process's start time may be and still mean the same process.
   */
  public static final Duration START_TIME_TOLERANCE = Duration.ofSeconds(2);

  /** How often re-adopted processes are checked for having ended. */
  static final Duration ADOPTED_POLL = Duration.ofMillis(250);

  /** The wrapper's {@code $0}: with the exit code file after it, it names one job's wrapper. */
  static final String WRAPPER_NAME = "octomy-job";

  /** Grace period of {@link #stop(RunKey)} before the process tree is killed. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

  /**
   * $1 is the exit code file, the rest is the command. Not exec'd: sh must outlive the command. The
   * command goes through {@code env} so it is exec'd from PATH as Kubernetes would run it, never
   * taken as a shell builtin or function (a command named "exit" must not end the wrapper before it
   * records anything). It uses only absolute paths and shell builtins, so nothing in a job's {@code
   * env} (a {@code PATH} without {@code /bin}, say) can stop it recording the exit code.
   */
  static final String WRAPPER =
      "f=$1; shift; /usr/bin/env -- \"$@\"; c=$?; "
          + "printf '%s\\n' \"$c\" > \"$f.tmp\" && /bin/mv -f \"$f.tmp\" \"$f\"; exit $c";

  /**
   * The search path a job gets unless its template sets {@code PATH}: the one container runtimes
   * give a container whose image sets none.
   */
  static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  /**
   * A job's environment: only what its template declares, over a documented minimum ({@code PATH},
   * and the agent user's {@code HOME}, {@code USER} and {@code LOGNAME}, which the job runs as).
   * Nothing else of the agent's own environment (its {@code KUBECONFIG}, cloud credentials of the
   * shell that started it) reaches a job, as a kubelet gives a container and HTCondor a job.
   */
  static Map<String, String> jobEnvironment(Map<String, String> agent, Map<String, String> job) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", DEFAULT_PATH);
    for (String name : List.of("HOME", "USER", "LOGNAME")) {
      if (agent.get(name) != null) {
        env.put(name, agent.get(name));
      }
    }
    env.putAll(job);
    return env;
  }

  private static final Logger LOG = LoggerFactory.getLogger(ProcessExecutor.class);
  private static final OperatingSystem OS = new SystemInfo().getOperatingSystem();

  private final JobStateStore store;
  private final Clock clock;
  private final Map<RunKey, JobState> states = new LinkedHashMap<>();
  private final Map<RunKey, ProcessHandle> live = new HashMap<>();
  private final Map<RunKey, CompletableFuture<JobRecord>> finishes = new HashMap<>();
  private final Set<RunKey> stopping = new HashSet<>();
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
    synchronized (this) {
      for (Path file : store.stateFiles()) {
        recover(file);
      }
    }
  }

  /**
   * Starts a job unless it was ever started by an executor on this state directory.
   *
   * @return true if this call started it; false if it was already known (running or finished)
   * @throws UncheckedIOException if the state directory cannot be written (nothing is started)
   */
  public synchronized boolean start(LaunchSpec spec) {
    if (closed) {
      throw new IllegalStateException("the executor is closed");
    }
    RunKey key = spec.key();
    if (states.containsKey(key) || Files.exists(store.dir(key).resolve(JobStateStore.STATE_FILE))) {
      return false;
    }
    JobState intent = JobState.intent(key, spec.command(), clock.instant());
    store.write(intent);
    states.put(key, intent);
    try {
      Path workDir = spec.workingDir() != null ? spec.workingDir() : store.workDir(key);
      // Kubernetes creates a missing workingDir too; doing the same keeps templates portable.
      Files.createDirectories(workDir);
      List<String> argv =
          new ArrayList<>(
              List.of("/bin/sh", "-c", WRAPPER, WRAPPER_NAME, store.exitCodeFile(key).toString()));
      argv.addAll(spec.command());
      ProcessBuilder pb =
          new ProcessBuilder(argv)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(store.logFile(key).toFile()))
              // Not a pipe: the job must not get EOF or SIGPIPE from us when the agent goes away.
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      Map<String, String> env = jobEnvironment(System.getenv(), spec.env());
      pb.environment().clear();
      pb.environment().putAll(env);
      Process process = pb.start();
      JobState running =
          intent.running(process.pid(), process.toHandle().info().startInstant().orElse(null));
      store.write(running);
      states.put(key, running);
      live.put(key, process.toHandle());
      process.onExit().thenAccept(p -> exited(key, p));
    } catch (IOException e) {
      finish(
          key,
          null,
          JobRecord.REASON_START_FAILED,
          "could not start " + spec.command().get(0) + ": " + e.getMessage());
    }
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
                .thenComparing(r -> r.key().uid()))
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
    return JobStateStore.logFile(stateDir.resolve("jobs"), key);
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
    CompletableFuture<JobRecord> done;
    synchronized (this) {
      root = live.get(key);
      if (root == null) {
        return false;
      }
      stopping.add(key);
      done = whenFinished(key);
    }
    // Collect the tree before signalling: once the wrapper dies its children are re-parented.
    List<ProcessHandle> tree = tree(root);
    tree.forEach(ProcessHandle::destroy);
    if (!awaitAll(tree, grace)) {
      List<ProcessHandle> again = new ArrayList<>(tree);
      again.addAll(tree(root)); // whatever it forked during the grace period
      again.stream().filter(h -> !hasExited(h)).forEach(ProcessHandle::destroyForcibly);
      awaitAll(again, Duration.ofSeconds(5));
    }
    try {
      // Our own child's exit callback comes at once with its exit status; give it a moment.
      done.get(200, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // An adopted process's callback may be seconds late (the JDK polls non-children), and
      // the tree is dead already: record the stop now. exited() ignores a second call.
      exited(key, null);
    }
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

  private void recover(Path file) {
    JobState s;
    try {
      s = store.read(file);
    } catch (IOException | RuntimeException e) {
      // Writes are atomic, so this is outside damage; the job did start, so it must not rerun.
      RunKey key = store.keyOf(file);
      LOG.warn("unreadable job state {}: {}", file, e.toString());
      JobState lost = JobState.intent(key, List.of(), null);
      states.put(key, lost);
      finish(
          key,
          null,
          JobRecord.REASON_AGENT_LOST,
          "the agent's record of this job is unreadable ("
              + e.getMessage()
              + "); it is not started again");
      return;
    }
    RunKey key = s.key();
    states.put(key, s);
    if (s.phase() != RunPhase.Running) {
      return;
    }
    if (s.pid() == null) {
      recoverUnrecordedStart(key, s);
      return;
    }
    Optional<ProcessHandle> handle =
        ProcessHandle.of(s.pid())
            .filter(h -> !hasExited(h))
            .filter(h -> sameStart(h, s.processStart()));
    if (handle.isPresent()) {
      adopt(key, handle.get());
      return;
    }
    finishFromExitCode(key, s);
  }

  /**
   * The previous agent wrote the intent but stopped before recording the pid: the process may never
   * have started, may be running, or may have ended. Its exit code file or its wrapper (found by
   * the arguments, which name that file) tells which; with neither it is lost.
   */
  private void recoverUnrecordedStart(RunKey key, JobState s) {
    if (store.readExitCode(key) != null) {
      finishFromExitCode(key, s);
      return;
    }
    Optional<ProcessHandle> wrapper = findWrapper(store.exitCodeFile(key).toString());
    if (wrapper.isPresent()) {
      JobState running =
          s.running(wrapper.get().pid(), wrapper.get().info().startInstant().orElse(null));
      try {
        store.write(running);
      } catch (UncheckedIOException e) {
        LOG.error("cannot persist the re-adoption of job {}: {}", key, e.getMessage());
      }
      states.put(key, running);
      adopt(key, wrapper.get());
      return;
    }
    // An exit code may have landed while we looked: the wrapper writes it just before exiting.
    if (store.readExitCode(key) != null) {
      finishFromExitCode(key, s);
      return;
    }
    finish(
        key,
        null,
        JobRecord.REASON_AGENT_LOST,
        "the agent stopped before it could record the process, and no process of this job is"
            + " running now; it is not started again");
  }

  /** The live wrapper process whose arguments are {@code octomy-job EXITCODEFILE ...}, if any. */
  static Optional<ProcessHandle> findWrapper(String exitCodeFile) {
    try (var all = ProcessHandle.allProcesses()) {
      return all.filter(
              h ->
                  h.info()
                      .arguments()
                      .map(args -> isWrapperOf(List.of(args), exitCodeFile))
                      .orElse(false))
          .filter(h -> !hasExited(h))
          .findFirst();
    }
  }

  private static boolean isWrapperOf(List<String> args, String exitCodeFile) {
    int i = args.indexOf(WRAPPER_NAME);
    return i > 0
        && i + 1 < args.size()
        && args.get(i + 1).equals(exitCodeFile)
        && args.get(i - 1).equals(WRAPPER);
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
        if (hasExited(e.getValue())) {
          exited(e.getKey(), null);
        }
      } catch (RuntimeException ex) {
        // Keep watching the others; a scheduled task that throws is never run again.
        LOG.warn("cannot check adopted job {}: {}", e.getKey(), ex.toString());
      }
    }
  }

  private void finishFromExitCode(RunKey key, JobState s) {
    Integer code = store.readExitCode(key);
    if (code != null) {
      finish(key, code, reasonFor(code), messageFor(code));
    } else {
      finish(
          key,
          null,
          JobRecord.REASON_AGENT_LOST,
          "process "
              + s.pid()
              + " ended while the agent was not running and recorded no exit code");
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
      finish(key, code, reasonFor(code), messageFor(code));
    }
  }

  private void finish(RunKey key, Integer code, String reason, String message) {
    JobState done = states.get(key).finished(code, reason, message, clock.instant());
    try {
      store.write(done);
    } catch (UncheckedIOException e) {
      // Keep reporting the outcome from memory; the next restart re-derives it from exitcode.
      LOG.error("cannot persist the end of job {}: {}", key, e.getMessage());
    }
    states.put(key, done);
    live.remove(key);
    adopted.remove(key);
    stopping.remove(key);
    CompletableFuture<JobRecord> f = finishes.get(key);
    if (f != null) {
      f.complete(done.toRecord());
    }
  }

  private static String reasonFor(int code) {
    return code == 0 ? JobRecord.REASON_SUCCEEDED : JobRecord.REASON_FAILED;
  }

  private static String messageFor(int code) {
    if (code == 0) {
      return null;
    }
    return code > 128 && code < 160
        ? "the command was killed by signal " + (code - 128) + " (exit code " + code + ")"
        : "the command exited with code " + code;
  }

  private static boolean sameStart(ProcessHandle h, Instant recorded) {
    Optional<Instant> now = h.info().startInstant();
    // Without a recorded start time a live pid proves nothing: it may be another process.
    return recorded != null
        && now.isPresent()
        && Duration.between(recorded, now.get()).abs().compareTo(START_TIME_TOLERANCE) <= 0;
  }

  /**
   * True once a process has ended. {@link ProcessHandle#isAlive()} stays true for a zombie, which
   * has exited but waits for its parent (or init) to reap it; some init processes reap only now and
   * then, so waiting for the reap would stall stops and re-adoption.
   */
  static boolean hasExited(ProcessHandle h) {
    if (!h.isAlive()) {
      return true;
    }
    OSProcess p = OS.getProcess(Math.toIntExact(h.pid()));
    return p == null || p.getState() == OSProcess.State.ZOMBIE;
  }

  private static List<ProcessHandle> tree(ProcessHandle root) {
    List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
    all.add(root);
    return all;
  }

  /**
   * Polls rather than joining {@link ProcessHandle#onExit()}: for processes that are not our
   * children the JDK polls from 300 ms upwards, which made every stop take seconds.
   */
  private static boolean awaitAll(List<ProcessHandle> handles, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!handles.stream().allMatch(ProcessExecutor::hasExited)) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
