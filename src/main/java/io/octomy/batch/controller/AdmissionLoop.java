package io.octomy.batch.controller;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.PassMemory;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one admission loop. Reconcilers only ask for a pass; passes run on this loop's single thread,
 * so no two decisions are ever taken at once. A pass reads the caches, decides with the pure {@link
 * AdmissionPass}, reserves its admissions in memory, writes only the statuses that changed, and
 * lets go of jobs that hold nothing any more ({@link ReservationFinalizer}).
 *
 * <p>When passes run: a change asks for one, and on an idle loop it starts at once (leading edge),
 * so a job created on a quiet system is decided within milliseconds. Changes that arrive while a
 * pass runs all share the one pass that follows it, which starts as soon as the running one has
 * sent its writes; under a burst each pass therefore takes everything that arrived during the pass
 * before, and the batches grow with the load instead of the passes multiplying. A timer adds a pass
 * every {@code tick} for aging, heartbeats and starvation.
 *
 * <p>A pass does not wait for its writes to be answered: the next pass leaves the jobs whose writes
 * are still out alone ({@link StatusWriteGate#ourWritePending}) and counts the admissions among
 * them as held ({@link AssumedAdmissions}), so nothing is booked or written twice. While more
 * writes are out than there are writers, a pass is put off until they drain below that (its writes
 * would only queue behind them, and deciding takes processor time from the server that answers
 * them); it then starts while the last writes of the batch before are still out, so the writers are
 * not left idle between batches.
 */
public final class AdmissionLoop implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AdmissionLoop.class);

  /** How long {@link #close} waits for a running pass, then for the writes it handed out. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  /**
   * Settings of the loop.
   *
   * @param passDelay how long a requested pass waits before it starts; zero (the default) starts it
   *     at once. Requests made while a pass waits or runs share the next pass either way.
   * @param tick the timer's period: aging, heartbeats and starvation
   * @param messageRefresh how often a waiting job's wording alone may be rewritten
   * @param writeThreads status writers working in parallel
   * @param finalizerRelease when a finished job loses the controller's finalizer
   * @param logsServedOn the Process nodes whose job output {@code kubectl octomy logs} reaches
   *     through this controller (standalone: its own node; a cluster: none), so that a job's Events
   *     suggest it only where it works
   */
  public record Settings(
      Duration passDelay,
      Duration tick,
      Duration messageRefresh,
      int writeThreads,
      FinalizerRelease finalizerRelease,
      Predicate<String> logsServedOn) {

    /** No node's job output is served by a controller on a cluster: it runs elsewhere. */
    public static final Predicate<String> NO_NODE = node -> false;

    /** The settings with the finalizer released as a job finishes, as on a cluster. */
    public Settings(Duration passDelay, Duration tick, Duration messageRefresh, int writeThreads) {
      this(passDelay, tick, messageRefresh, writeThreads, FinalizerRelease.AT_FINISH);
    }

    /** The settings of a controller that serves no node's job output, as on a cluster. */
    public Settings(
        Duration passDelay,
        Duration tick,
        Duration messageRefresh,
        int writeThreads,
        FinalizerRelease finalizerRelease) {
      this(passDelay, tick, messageRefresh, writeThreads, finalizerRelease, NO_NODE);
    }

    public static Settings defaults() {
      return new Settings(Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(30), 8);
    }

    public Settings withFinalizerRelease(FinalizerRelease release) {
      return new Settings(passDelay, tick, messageRefresh, writeThreads, release, logsServedOn);
    }

    public Settings withLogsServedOn(Predicate<String> nodes) {
      return new Settings(passDelay, tick, messageRefresh, writeThreads, finalizerRelease, nodes);
    }
  }

  /**
   * What one pass did, for tests and logs.
   *
   * @param decided Queued jobs the pass decided about
   * @param admitted admissions decided (and assumed) in this pass
   * @param skippedUnchanged decisions whose status needed no write
   * @param decideTime time in the pure pass, snapshot included
   * @param writes how the pass's Pod and status writes ended
   * @param nodes what marking silent nodes did
   */
  public record PassReport(
      int decided,
      int admitted,
      int skippedUnchanged,
      Duration decideTime,
      WriteStep.Written writes,
      SilentNodeMarker.Marked nodes) {

    /** Statuses that landed. */
    public int written() {
      return writes.written();
    }

    /** Statuses refused with 409. */
    public int conflicts() {
      return writes.conflicts();
    }
  }

  private final ClusterView view;
  private final ControllerMetrics metrics;
  private final Settings settings;
  private final AssumedAdmissions assumed = new AssumedAdmissions();
  private final AdmissionReadBack readBack;
  private final DecisionStep deciding;
  private volatile LastPass lastPass;

  /**
   * The job gauges are counted at most this often: counting every job was a tenth of a pass under
   * load, and a scrape comes every 15 s or more. The timer's passes count them too, so a quiet
   * system's gauges are at most a tick (and this period) behind its jobs.
   */
  static final Duration GAUGE_PERIOD = Duration.ofSeconds(1);

  /** When the gauges are counted next (System.nanoTime); only the loop's passes read it. */
  private long gaugesDue = System.nanoTime();

  private final RunFollower runs;
  private final WriteStep writing;
  private final SilentNodeMarker liveness;
  private final QueueStatusWriter queueStatuses;
  private final QueueUsageMeter queueUsage;
  private final SnapshotBuilder snapshots = new SnapshotBuilder();
  private final StatusWriteGate gate;
  private final ReservationFinalizer finalizer;
  private final FinishedJobCleanup cleanup;
  private final ArrayStep arrays = new ArrayStep();
  private final ClusterWriter writer;
  private final Clock clock;

  private final ScheduledExecutorService loop;
  private final ExecutorService writers;
  private final EventRecorder events;
  private final AtomicBoolean passPending = new AtomicBoolean();
  private final AtomicLong requestedAt = new AtomicLong();
  private final AtomicBoolean passAfterWrites = new AtomicBoolean();
  private volatile boolean active;
  private final AtomicBoolean firstPassToCome = new AtomicBoolean();
  private volatile PassListener passListener = (pass, first) -> {};

  public AdmissionLoop(
      ClusterView view,
      ClusterWriter writer,
      Policy policy,
      Clock clock,
      ControllerMetrics metrics,
      Settings settings) {
    this(view, writer, policy, clock, metrics, settings, null);
  }

  /**
   * The loop with the clean-up's timers given (null: this loop's own scheduler); for tests in this
   * package, which move the clock by hand.
   */
  AdmissionLoop(
      ClusterView view,
      ClusterWriter writer,
      Policy policy,
      Clock clock,
      ControllerMetrics metrics,
      Settings settings,
      FinishedJobCleanup.Timers timers) {
    this.view = view;
    this.writer = writer;
    this.clock = clock;
    this.metrics = metrics;
    this.settings = settings;
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "admission-loop"));
    this.writers =
        Executors.newFixedThreadPool(settings.writeThreads(), r -> daemon(r, "status-writer"));
    // Events go out on their own thread: they never delay a status write, and under a burst they
    // are folded into Events with a count rather than taking the API server's capacity from
    // decisions, or being dropped.
    this.events = new EventRecorder(writer::recordEvent, System::nanoTime, metrics);
    this.gate = new StatusWriteGate(settings.messageRefresh(), metrics);
    this.readBack = new AdmissionReadBack(assumed, writer);
    this.deciding = new DecisionStep(assumed, snapshots, gate, policy);
    this.runs = new RunFollower(snapshots, gate, policy, settings.logsServedOn());
    this.writing =
        new WriteStep(writer, metrics, gate, assumed, writers, events, this::writeAnswered);
    this.liveness = new SilentNodeMarker(writer, policy.nodeHeartbeatTimeout());
    this.queueStatuses = new QueueStatusWriter(writer);
    this.queueUsage = new QueueUsageMeter(policy.usageHalfLife());
    this.finalizer = new ReservationFinalizer(settings.finalizerRelease());
    this.cleanup =
        new FinishedJobCleanup(
            policy.finishedJobTTL(),
            timers != null
                ? timers
                : (delay, wake) ->
                    scheduleUnlessClosed(wake, delay.toNanos(), TimeUnit.NANOSECONDS),
            this::requestPass);
  }

  /**
   * Starts the timer; passes run only once {@link #activate()} is called (caches synced, leadership
   * held).
   */
  public void start() {
    long tick = settings.tick().toMillis();
    loop.scheduleWithFixedDelay(this::safePass, tick, tick, TimeUnit.MILLISECONDS);
  }

  /** Allows passes: the caches are synced and this replica leads. */
  public void activate() {
    if (!active) {
      firstPassToCome.set(true);
      active = true;
      requestPass();
    }
  }

  /** Stops deciding (leadership lost); a later {@link #activate()} resumes. */
  public void deactivate() {
    active = false;
  }

  public boolean isActive() {
    return active;
  }

  /**
   * Asks for a pass: at once on an idle loop, else right after the running one. Every request made
   * before a pass starts is served by that pass; only a request made after it started (it may have
   * read the caches before the change) asks for another.
   */
  public void requestPass() {
    if (passPending.compareAndSet(false, true)) {
      requestedAt.set(System.nanoTime());
      scheduleUnlessClosed(
          () -> {
            passPending.set(false);
            if (LOG.isDebugEnabled()) {
              LOG.debug(
                  "pass asked for {} ms ago starts",
                  (System.nanoTime() - requestedAt.get()) / 1_000_000);
            }
            safePass();
          },
          settings.passDelay().toNanos(),
          TimeUnit.NANOSECONDS);
    }
  }

  /**
   * A closed loop refuses new passes; informers and answered writes may still ask for one until
   * they stop too, and that is no error.
   */
  private void scheduleUnlessClosed(Runnable pass, long delay, TimeUnit unit) {
    try {
      loop.schedule(pass, delay, unit);
    } catch (RejectedExecutionException closed) {
      LOG.debug("a pass asked for after the loop closed is not run");
    }
  }

  /**
   * What the timer and requested passes run, only while this replica leads: a pass that does not
   * wait for its writes. While more status writes are out than there are writers to take them, the
   * pass is put off until they drain below that: deciding now would only queue its writes behind
   * them, and take processor time from the server that answers them. The write answered then asks
   * for the pass again.
   */
  private void safePass() {
    if (!active) {
      return;
    }
    if (gate.sending() > settings.writeThreads()) {
      passAfterWrites.set(true);
      // A write answered between the check and the flag would not have seen the flag: look again.
      if (gate.sending() > settings.writeThreads() || !passAfterWrites.compareAndSet(true, false)) {
        return;
      }
    }
    try {
      sendPass()
          .whenComplete(
              (report, e) -> {
                if (e != null) {
                  LOG.error("the writes of an admission pass failed", e);
                }
              });
    } catch (RuntimeException | Error e) {
      // A bad object or a bug must not stop the loop: log it and try again on the next pass. An
      // Error too: the timer never runs a task again once it threw, and a leader that keeps its
      // Lease but decides nothing would hold every job without a word.
      LOG.error("admission pass failed; retrying on the next pass", e);
    }
  }

  /** A listener that fails is logged and never stops the pass. */
  private void tellListener(LastPass pass) {
    try {
      passListener.passDecided(pass, active && firstPassToCome.getAndSet(false));
    } catch (RuntimeException e) {
      LOG.warn("the pass listener failed; the pass goes on", e);
    }
  }

  /** A status write was answered: a pass put off behind the writes may go now. */
  private void writeAnswered() {
    if (passAfterWrites.get()
        && gate.sending() <= settings.writeThreads()
        && passAfterWrites.compareAndSet(true, false)) {
      requestPass();
    }
  }

  /** What the timer and requested passes run: a pass, only while this replica leads. */
  Optional<PassReport> passIfActive() {
    return active ? Optional.of(runPass()) : Optional.empty();
  }

  /**
   * Waits until everything the loop had been asked to do before this call has run (a pass asked for
   * earlier runs before this returns); for tests in this package.
   */
  void awaitIdle() throws InterruptedException, ExecutionException {
    loop.schedule(() -> {}, 0, TimeUnit.NANOSECONDS).get();
  }

  /**
   * The snapshot the last pass decided over and what it decided: with the decisions applied, the
   * state this controller holds now (its admissions are assumed until their writes are seen). With
   * the memory that pass left ({@link PassMemory}, immutable): the visibility API's forecast starts
   * from it as the next pass would, so that a question does not read every job afresh.
   */
  public record LastPass(Snapshot snapshot, AdmissionResult result, PassMemory memory) {

    /** A last pass that left no memory. */
    public LastPass(Snapshot snapshot, AdmissionResult result) {
      this(snapshot, result, PassMemory.empty());
    }
  }

  /**
   * Told of each pass on the loop's thread as soon as it has decided, so it must return at once
   * (hand any work to a thread of its own): a slow listener would delay every decision.
   */
  public interface PassListener {
    /**
     * @param firstSinceActivated the first pass since this replica began to lead
     */
    void passDecided(LastPass pass, boolean firstSinceActivated);
  }

  /**
   * Sets the one listener told of each pass (the visibility API's forecasts). One set after this
   * replica's first pass hears of the last pass at once, as the first: it may be set up after the
   * loop began to decide.
   */
  public void onPass(PassListener listener) {
    this.passListener = listener;
    LastPass last = lastPass;
    if (active && last != null) {
      listener.passDecided(last, true);
    }
  }

  /** The last pass of this replica; empty before its first pass (or while it does not lead). */
  public Optional<LastPass> lastPass() {
    return active ? Optional.ofNullable(lastPass) : Optional.empty();
  }

  /** What the loop reads (the informer caches); for tests in this package. */
  ClusterView view() {
    return view;
  }

  /** One pass, its writes awaited; for tests (the loop's own passes do not wait for theirs). */
  public PassReport runPass() {
    return sendPass().join();
  }

  /**
   * One pass: decides, follows runs and sends the writes; returns once they are sent, with a future
   * of the pass's report, complete once every write has its answer. Passes never overlap (this
   * monitor), but a pass may start while the writes of the one before are still out: those jobs are
   * left alone until theirs are answered ({@link StatusWriteGate#ourWritePending}).
   */
  synchronized CompletableFuture<PassReport> sendPass() {
    long t0 = System.nanoTime();
    Instant now = clock.instant();
    List<BatchJob> jobs = new ArrayList<>(view.jobs());
    List<BatchNode> nodes = new ArrayList<>(view.nodes());
    List<BatchQueue> queues = new ArrayList<>(view.queues());
    JobsByKey byKey = new JobsByKey(jobs);

    readBack.settle(byKey);
    // Array jobs run nothing: they are seen by the pass (their dependants wait for them) but never
    // decided, and their items are created and counted here.
    ArrayStep.Split split = ArrayStep.split(jobs);
    ArrayStep.Planned arrayPlan = arrays.plan(split, gate, now);
    List<JobView> seenOnly = cleanup.records().views(byKey, now);
    if (!arrayPlan.views().isEmpty()) {
      seenOnly = new ArrayList<>(seenOnly);
      seenOnly.addAll(arrayPlan.views());
    }
    DecisionStep.Decided decided =
        deciding.decide(
            split.decided(),
            nodes,
            QueueViews.of(queues, view.namespaces(), queueUsage.at(queues, now)),
            byKey,
            now,
            seenOnly);
    queueUsage.record(decided.queues(), now);
    // The forecasts answered from this pass complete each array with the items it will create.
    lastPass =
        new LastPass(
            decided.snapshot().withArrays(arrayPlan.shapes()), decided.result(), decided.memory());
    tellListener(lastPass);
    wakeForRetries(decided.snapshot(), split.decided(), now);
    metrics.recordPass(decided.decideTime());
    long t1 = System.nanoTime();
    RunFollower.Followed followed = runs.follow(split.decided(), nodes, view.jobPods(), now);
    long t2 = System.nanoTime();

    List<StatusWrite> writes = new ArrayList<>(decided.writes());
    writes.addAll(followed.writes());
    writing.deletePods(followed.podsToDelete());
    CompletableFuture<WriteStep.Written> statusWrites =
        writing.send(followed.podsToCreate(), writes, now, runs::podNotCreated);
    List<BatchJob> released = finalizer.toRelease(jobs, snapshots, assumed, gate);
    CompletableFuture<Integer> releaseConflicts = writing.release(released, finalizer);
    CompletableFuture<Void> cleaned =
        cleanup.send(
            cleanup.due(jobs, gate, now), cleanup.stale(byKey), view.jobPods(), writer, writers);
    CompletableFuture<Void> read = cleanup.readRecords(jobs, writer, writers);
    CompletableFuture<Void> arrayWrites = arrays.send(arrayPlan, writer, gate, writers, now);
    CompletableFuture<WriteStep.Written> written =
        statusWrites.thenCombine(CompletableFuture.allOf(cleaned, read, arrayWrites), (w, c) -> w);
    SilentNodeMarker.Marked marked = liveness.mark(nodes, now);
    queueStatuses.write(queues, decided.queues(), queueUsage, now);
    if (t0 - gaugesDue >= 0) {
      updateGauges(jobs, decided.result());
      gaugesDue = t0 + GAUGE_PERIOD.toNanos();
    }
    long sent = System.nanoTime();
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "pass over {} jobs: {} decisions to write ({} admissions), {} run statuses, {} finalizers"
              + " to release, {} writes out; decide {} ms, follow {} ms, send {} ms",
          jobs.size(),
          decided.writes().size(),
          decided.admitted(),
          followed.writes().size(),
          released.size(),
          gate.sending(),
          (t1 - t0) / 1_000_000,
          (t2 - t1) / 1_000_000,
          (sent - t2) / 1_000_000);
    }
    // The report's figures taken now, so that nothing of the pass (its writes, each job as read)
    // is held until its slowest write is answered.
    int decisions = decided.result().decisions().size();
    int admitted = decided.admitted();
    int skippedUnchanged = decided.skippedUnchanged();
    Duration decideTime = decided.decideTime();
    return written.thenCombine(
        releaseConflicts,
        (w, conflicts) -> {
          metrics.admitted(w.admissionsWritten());
          if (w.conflicts() > 0 || conflicts > 0) {
            requestPass(); // decide again on fresh data
          }
          if (LOG.isDebugEnabled()) {
            LOG.debug(
                "writes of the pass of {} ms ago answered: {} landed, {} conflicts",
                (System.nanoTime() - t0) / 1_000_000,
                w.written(),
                w.conflicts());
          }
          return new PassReport(decisions, admitted, skippedUnchanged, decideTime, w, marked);
        });
  }

  /** When the earliest back-off or run deadline a pass is set for ends; null when none is set. */
  private Instant wakeAt;

  /** The instant a pass is set for (a back-off or a deadline ends); for tests in this package. */
  synchronized Instant wakeAt() {
    return wakeAt;
  }

  /**
   * Sets a pass for the moment the earliest retry's back-off or running job's deadline ends, so
   * that a retry is admitted and a run past its deadline stopped then, not at the next tick or
   * change. One wake is out at a time: the earliest.
   */
  private void wakeForRetries(Snapshot snapshot, List<BatchJob> jobs, Instant now) {
    Instant earliest = null;
    for (JobView job : snapshot.jobs()) {
      earliest = earlierFuture(earliest, job.notBefore(), now);
    }
    for (BatchJob job : jobs) {
      if (job.getStatus() != null && job.getStatus().getPhase() == JobPhase.Running) {
        earliest = earlierFuture(earliest, RunFollower.deadline(job), now);
      }
    }
    if (earliest == null || (wakeAt != null && wakeAt.isAfter(now) && !earliest.isBefore(wakeAt))) {
      return;
    }
    Instant at = earliest;
    wakeAt = at;
    scheduleUnlessClosed(
        () -> {
          synchronized (this) {
            if (at.equals(wakeAt)) {
              wakeAt = null;
            }
          }
          requestPass();
        },
        Duration.between(now, at).toNanos(),
        TimeUnit.NANOSECONDS);
  }

  /** The earlier of the two, counting {@code t} only when it is after {@code now}. */
  private static Instant earlierFuture(Instant earliest, Instant t, Instant now) {
    return t != null && t.isAfter(now) && (earliest == null || t.isBefore(earliest)) ? t : earliest;
  }

  private void updateGauges(List<BatchJob> jobs, AdmissionResult result) {
    Map<List<String>, Long> counts = new HashMap<>();
    for (BatchJob j : jobs) {
      BatchJobStatus s = j.getStatus();
      List<String> k =
          List.of(
              s == null || s.getPhase() == null ? "Queued" : s.getPhase().name(),
              StatusComposer.serviceClass(j).name(),
              s == null || s.getReason() == null ? "" : s.getReason());
      counts.merge(k, 1L, Long::sum);
    }
    List<ControllerMetrics.JobCount> rows = new ArrayList<>();
    counts.forEach(
        (k, n) -> rows.add(new ControllerMetrics.JobCount(k.get(0), k.get(1), k.get(2), n)));
    int starving = (int) result.decisions().values().stream().filter(Decision::starving).count();
    metrics.jobs(rows, starving, assumed.size());
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Stops the loop, then the writers, waiting up to {@link #CLOSE_WAIT} for each. Passes not yet
   * started are dropped; a pass already running finishes and hands its writes to the writers, which
   * send them before they stop: stopping the writers first would refuse those writes, leaving jobs
   * decided but not written. Writes still queued when the wait is over are dropped, with one line
   * that says how many: sent later they would only fail one by one against a client closed by then
   * (thousands of lines after a burst), and a status not written is decided again by the next
   * start.
   */
  @Override
  public void close() {
    close(CLOSE_WAIT);
  }

  /** {@link #close()} with its wait given; for tests in this package. */
  void close(Duration wait) {
    active = false;
    loop.shutdownNow();
    if (!awaitTermination(loop, wait)) {
      LOG.warn("closing the admission loop: a pass still runs after {}; not waiting longer", wait);
    }
    writers.shutdown();
    if (!awaitTermination(writers, wait)) {
      int dropped = writers.shutdownNow().size();
      LOG.warn(
          "closing the admission loop: {} status writes not sent after {}; the next start decides"
              + " those jobs again",
          dropped,
          wait);
    }
    events.close();
  }

  /**
   * True once {@link #close()} has run and neither a pass nor a status write still runs: nothing
   * this loop decided can reach the server any more.
   */
  public boolean stopped() {
    return loop.isTerminated() && writers.isTerminated();
  }

  private static boolean awaitTermination(ExecutorService executor, Duration wait) {
    try {
      return executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
