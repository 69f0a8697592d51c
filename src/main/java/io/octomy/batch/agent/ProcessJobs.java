package io.octomy.batch.agent;

import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Process executor's side of the agent: starts each job admitted here once (each gang replica
 * placed here, one process each), measures its process tree, reports it, and stops and forgets the
 * runs of deleted BatchJobs. A gang's replica still running when its job ended (another replica
 * failed) or went on to a later run is stopped like a deleted job's.
 *
 * <p>Never twice: {@link ProcessExecutor#start} refuses a key it ever started (its state directory
 * remembers across restarts), and a job is started only in phase Admitted, so a job the controller
 * already saw Running is never started by an agent that lost its state.
 */
final class ProcessJobs implements JobTracker {

  /**
   * Jobs started at once. A start spends its time waiting: for its intent's file and directories to
   * reach the disk (five syncs) and for the process to be created. Sixteen side by side let those
   * syncs share the file system's journal commits; with four, 300 tiny jobs waited a median 1.1 to
   * 1.9 s from admitted to reported running (0.4 to 0.75 s with sixteen, docs/benchmarks.md).
   */
  static final int STARTERS = 16;

  /**
   * Jobs started by one reconcile; the rest wait for the next, which is asked for at once. Why: the
   * node's report is written between two reconciles, so a job's start is reported after the other
   * starts of its reconcile only. With every admitted job started in one reconcile, 300 tiny jobs
   * admitted within a second waited for the last of the 300 starts before any was reported.
   */
  static final int STARTS_PER_RECONCILE = 2 * STARTERS;

  /** Reason of the entry of a job deleted before it started here. */
  static final String REASON_DELETED = "Deleted";

  /**
   * Runs done here or refused whose end the controller has already written: the job finished, or it
   * went on to a later run.
   */
  private volatile Set<RunKey> outcomeRecorded = Set.of();

  private static final Logger LOG = LoggerFactory.getLogger(ProcessJobs.class);

  /**
   * How long a failed run whose job was found to exist is kept before the server is asked again.
   */
  static final Duration RETRIED_RECHECK = Duration.ofSeconds(30);

  private final Predicate<RunKey> jobExists;

  /** Failed runs whose job left this node but still exists, with when to ask again (nanoTime). */
  private final Map<RunKey, Long> keptRuns = new HashMap<>();

  private final String nodeName;
  private final ProcessExecutor executor;
  private final ExecutorService stopper;
  private final Runnable onChange;
  private final Map<RunKey, ProcessTreeMeter> meters = new HashMap<>();
  private final Map<RunKey, UsageSummary> finalUsage = new HashMap<>();
  private final Map<RunKey, NodeJob> refused = new HashMap<>();
  private final Set<RunKey> stopping = ConcurrentHashMap.newKeySet();
  private final ExecutorService starters =
      Executors.newFixedThreadPool(
          STARTERS,
          r -> {
            Thread t = new Thread(r, "octomy-agent-start");
            t.setDaemon(true);
            return t;
          });

  /** Whether the last reconcile left admitted jobs to start ({@link #STARTS_PER_RECONCILE}). */
  private boolean startsLeft;

  /**
   * @param nodeName this node
   * @param executor runs the processes; closed (detached from, never stopping jobs) with this
   *     tracker
   * @param stopper runs stops, which can wait out a grace period, off the agent's thread
   * @param onChange called (from any thread) when a job finishes or a stop completes, to report and
   *     reconcile soon
   */
  ProcessJobs(
      String nodeName, ProcessExecutor executor, ExecutorService stopper, Runnable onChange) {
    this(nodeName, executor, stopper, onChange, key -> false);
  }

  /**
   * @param jobExists asks the server whether a run's job still exists, for a failed run whose job
   *     left this node: it may be queued again for a retry, and its output must stay readable
   */
  ProcessJobs(
      String nodeName,
      ProcessExecutor executor,
      ExecutorService stopper,
      Runnable onChange,
      Predicate<RunKey> jobExists) {
    this.jobExists = jobExists;
    this.nodeName = nodeName;
    this.executor = executor;
    this.stopper = stopper;
    this.onChange = onChange;
    // Jobs re-adopted from the state directory: hear of their end as of jobs started here.
    executor.records().stream().filter(r -> !r.finished()).forEach(r -> watch(r.key()));
  }

  @Override
  public boolean reconcile(InformedJobs jobs) {
    boolean changed = false;
    startsLeft = false;
    List<LaunchPlan> toStart = new ArrayList<>();
    for (BatchJob job : jobs.placedOn(nodeName)) {
      if (job.getStatus().getPhase() != JobPhase.Admitted || !runsHere(job)) {
        continue;
      }
      // One process per replica placed on this node (a job of one replica: replica 0).
      for (int replica : GangReplicas.on(job, nodeName)) {
        if (job.getMetadata().getDeletionTimestamp() != null) {
          changed |= refuseDeleted(job, replica);
        } else if (toStart.size() < STARTS_PER_RECONCILE) {
          changed |= plan(job, replica, toStart);
        } else {
          startsLeft = true;
        }
      }
    }
    changed |= startAll(toStart);
    Set<RunKey> recorded = new HashSet<>();
    for (JobRecord r : executor.records()) {
      BatchJob job = jobs.jobOf(r.key());
      if (job != null) {
        if (outcomeWritten(job, r.key())) {
          recorded.add(r.key());
        }
        // Being deleted: its process stops at once; the job holds its place until it has. Ended by
        // the controller while it still runs (its node was deleted and came back too late, or the
        // run was given up as lost and the job retried): it holds no place any more, so it must
        // not run beside the jobs admitted into it.
        if (!r.finished()
            && (job.getMetadata().getDeletionTimestamp() != null || outcomeWritten(job, r.key()))) {
          stopDeleted(r.key());
        }
        continue;
      }
      if (!r.finished()) {
        stopDeleted(r.key());
      } else if (r.phase() == RunPhase.Failed && stillExists(r.key())) {
        // A failed run's job may be queued again for a retry (it left this node, not the
        // cluster): its record and output stay until the job itself is gone.
        recorded.add(r.key());
      } else {
        keptRuns.remove(r.key());
        executor.forget(r.key());
        meters.remove(r.key());
        finalUsage.remove(r.key());
        LOG.info("job {} was deleted; its record and log are removed", r.key());
        changed = true;
      }
    }
    changed |= refused.keySet().removeIf(k -> jobs.jobOf(k) == null);
    refused.keySet().stream().filter(k -> outcomeWritten(jobs.jobOf(k), k)).forEach(recorded::add);
    // Once the controller has written a job's outcome, the node's status need not carry it: without
    // this, status.jobs would grow with every job the node ever ran until the jobs are deleted.
    changed |= !recorded.equals(outcomeRecorded);
    outcomeRecorded = recorded;
    return changed;
  }

  /** Whether a failed run's job still exists, asking the server at most every 30 s per run. */
  private boolean stillExists(RunKey key) {
    long now = System.nanoTime();
    Long askAgain = keptRuns.get(key);
    if (askAgain != null && now - askAgain < 0) {
      return true;
    }
    if (!jobExists.test(key)) {
      return false;
    }
    keptRuns.put(key, now + RETRIED_RECHECK.toNanos());
    return true;
  }

  private static boolean isFinished(BatchJob job) {
    return job.getStatus() != null
        && job.getStatus().getPhase() != null
        && job.getStatus().getPhase().isFinished();
  }

  /** Whether the controller has written this run's end: the job finished, or runs again later. */
  private static boolean outcomeWritten(BatchJob job, RunKey key) {
    return isFinished(job) || (job.getStatus() != null && job.getStatus().currentRun() > key.run());
  }

  /** The key of a replica of the job's current run ({@code status.run}). */
  private static RunKey keyOf(BatchJob job, int replica) {
    return new RunKey(
        job.getMetadata().getNamespace(),
        job.getMetadata().getName(),
        job.getMetadata().getUid(),
        job.getStatus() == null ? 1 : job.getStatus().currentRun(),
        replica);
  }

  @Override
  public boolean startsLeft() {
    return startsLeft;
  }

  /**
   * Whether this agent runs the job: the executor recorded when it was admitted is Process (one
   * field decides; on a node whose spec says Pod the controller creates a Pod instead). A job
   * admitted before records were kept is run as before. A gang's replicas may span Process and Pod
   * nodes, so each replica's node decides: an agent that runs processes runs those placed on it.
   */
  private static boolean runsHere(BatchJob job) {
    if (GangReplicas.isGang(job)) {
      return true;
    }
    AdmissionRecord held = job.getStatus().getAdmission();
    return held == null || held.getExecutor() == null || held.getExecutor() == Executor.Process;
  }

  /**
   * A job deleted while admitted and not started here: it is never started, and the report says so,
   * so that the controller knows no work of it is left and lets it go.
   */
  private boolean refuseDeleted(BatchJob job, int replica) {
    RunKey key;
    try {
      key = keyOf(job, replica);
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (refused.containsKey(key) || executor.record(key).isPresent()) {
      return false;
    }
    refused.put(
        key,
        NodeJobs.failed(
            key, REASON_DELETED, "the job was deleted before it started; it is not started"));
    return true;
  }

  /**
   * Decides about a job admitted here: refused (with the reason in its entry), already known, or
   * added to {@code toStart}.
   *
   * @return true when it was refused now (a change to report)
   */
  private boolean plan(BatchJob job, int replica, List<LaunchPlan> toStart) {
    RunKey key;
    try {
      key = keyOf(job, replica);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "cannot run job {}/{}: {}",
          job.getMetadata().getNamespace(),
          job.getMetadata().getName(),
          e.getMessage());
      return false;
    }
    if (refused.containsKey(key) || executor.record(key).isPresent()) {
      return false;
    }
    LaunchPlan plan;
    try {
      plan = LaunchPlan.of(key, job);
    } catch (RuntimeException e) {
      // A shape no check foresaw: this job is refused with the cause, the later ones still run.
      plan =
          new LaunchPlan(
              null,
              LaunchPlan.INVALID_CONTAINER,
              "job " + key + " cannot be started: its template could not be read (" + e + ")",
              List.of());
    }
    if (!plan.runnable()) {
      LOG.warn("not running job {}: {}", key, plan.message());
      refused.put(key, NodeJobs.failed(key, plan.failureReason(), plan.message()));
      return true;
    }
    plan.notes().forEach(n -> LOG.warn("job {}: {}", key, n));
    toStart.add(plan);
    return false;
  }

  /**
   * Starts the planned jobs, {@link #STARTERS} at a time (each start waits for its intent to reach
   * the disk and for a process to be created; side by side those waits overlap), then takes a first
   * reading of each, so that a job shorter than the sample interval still gets one.
   *
   * @return true when any job started
   */
  private boolean startAll(List<LaunchPlan> plans) {
    List<Future<Boolean>> starts = new ArrayList<>();
    for (LaunchPlan plan : plans) {
      starts.add(starters.submit(() -> executor.start(plan.spec())));
    }
    List<ProcessTreeMeter> started = new ArrayList<>();
    boolean any = false;
    for (int i = 0; i < plans.size(); i++) {
      RunKey key = plans.get(i).spec().key();
      try {
        if (!starts.get(i).get()) {
          continue;
        }
      } catch (ExecutionException e) {
        // Nothing started (the intent could not be written); the next reconcile tries again.
        LOG.warn("cannot start job {}: {}", key, e.getCause().toString());
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return any;
      }
      any = true;
      Long pid = executor.record(key).map(JobRecord::pid).orElse(null);
      LOG.info("started job {} (pid {}), output in {}", key, pid, executor.logFile(key));
      if (pid != null) {
        ProcessTreeMeter meter = new ProcessTreeMeter(pid);
        meters.put(key, meter);
        started.add(meter);
      }
      watch(key);
    }
    started.forEach(ProcessTreeMeter::sample);
    return any;
  }

  private void watch(RunKey key) {
    executor.whenFinished(key).thenRun(onChange);
  }

  /** Stops off the agent thread; the next reconcile after the stop forgets the job. */
  private void stopDeleted(RunKey key) {
    if (!stopping.add(key)) {
      return;
    }
    LOG.info("job {} was deleted or ended while running; stopping it", key);
    stopper.execute(
        () -> {
          try {
            executor.stop(key);
          } catch (RuntimeException e) {
            LOG.warn("stopping job {} failed: {}", key, e.toString());
          } finally {
            stopping.remove(key);
            onChange.run();
          }
        });
  }

  @Override
  public void sample() {
    for (JobRecord r : executor.records()) {
      ProcessTreeMeter meter = meters.get(r.key());
      if (!r.finished() && r.pid() != null) {
        if (meter == null) {
          meter = new ProcessTreeMeter(r.pid());
          meters.put(r.key(), meter);
        }
        meter.sample();
      } else if (meter != null) {
        // Its last reading is the final word; the meter itself is no longer needed.
        finalUsage.put(r.key(), meter.summary());
        meters.remove(r.key());
      }
    }
  }

  @Override
  public List<NodeJob> reports() {
    List<NodeJob> out = new ArrayList<>();
    refused.entrySet().stream()
        .filter(e -> !outcomeRecorded.contains(e.getKey()))
        .forEach(e -> out.add(e.getValue()));
    for (JobRecord r : executor.records()) {
      if (r.finished() && outcomeRecorded.contains(r.key())) {
        continue;
      }
      ProcessTreeMeter meter = meters.get(r.key());
      NodeJob entry = NodeJobs.of(r, meter != null ? meter.summary() : finalUsage.get(r.key()));
      entry.setOutput(executor.logFile(r.key()).toString());
      out.add(entry);
    }
    out.sort(NodeJobs.ORDER);
    return out;
  }

  @Override
  public void close() {
    starters.shutdown();
    executor.close();
  }
}
