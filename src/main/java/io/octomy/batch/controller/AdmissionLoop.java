package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.Resources;
import io.octomy.batch.controller.drift.DriftFolder;
import io.octomy.batch.controller.drift.FinishedRun;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Policy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one admission loop. Reconcilers only ask for a pass; passes run on this loop's single thread,
 * so no two decisions are ever taken at once. A pass reads the caches, decides with the pure {@link
 * AdmissionPass}, reserves its admissions in memory, and writes only the statuses that changed. It
 * runs shortly after any relevant change (changes within {@code debounce} share one pass) and on a
 * timer for aging, heartbeats and starvation.
 */
public final class AdmissionLoop implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AdmissionLoop.class);
  private static final int EVENT_QUEUE = 1000;

  /** Settings of the loop. */
  public record Settings(
      Duration debounce, Duration tick, Duration messageRefresh, int writeThreads) {
    public static Settings defaults() {
      return new Settings(Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofSeconds(30), 8);
    }
  }

  /** What one pass did, for tests and logs. */
  public record PassReport(
      int decided,
      int admitted,
      int written,
      int conflicts,
      int skippedUnchanged,
      Duration decideTime) {}

  private final ClusterView view;
  private final ClusterWriter writer;
  private final Policy policy;
  private final Clock clock;
  private final ControllerMetrics metrics;
  private final Settings settings;
  private final AssumedAdmissions assumed = new AssumedAdmissions();
  private final SnapshotBuilder snapshots = new SnapshotBuilder();
  private final DriftFolder drift = new DriftFolder();
  private final StatusWriteGate gate;

  /** uids of jobs whose Pod was created (or is being created) but is not in the cache yet. */
  private final Set<String> podsRequested = ConcurrentHashMap.newKeySet();

  private final ScheduledExecutorService loop;
  private final ExecutorService writers;
  private final ThreadPoolExecutor events;
  private final AtomicBoolean passPending = new AtomicBoolean();
  private volatile boolean active;

  public AdmissionLoop(
      ClusterView view,
      ClusterWriter writer,
      Policy policy,
      Clock clock,
      ControllerMetrics metrics,
      Settings settings) {
    this.view = view;
    this.writer = writer;
    this.policy = policy;
    this.clock = clock;
    this.metrics = metrics;
    this.settings = settings;
    this.gate = new StatusWriteGate(settings.messageRefresh(), metrics);
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "admission-loop"));
    this.writers =
        Executors.newFixedThreadPool(settings.writeThreads(), r -> daemon(r, "status-writer"));
    // Events go out on their own thread through a bounded queue, as Kubernetes' event recorder
    // does: they never delay a status write, and under a burst the overflow is dropped (and
    // counted) rather than taking the API server's capacity from decisions.
    this.events =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(EVENT_QUEUE),
            r -> daemon(r, "event-recorder"),
            (task, pool) -> metrics.eventDropped());
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

  /** Asks for a pass soon; many requests within the debounce window make one pass. */
  public void requestPass() {
    if (passPending.compareAndSet(false, true)) {
      loop.schedule(
          () -> {
            passPending.set(false);
            safePass();
          },
          settings.debounce().toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  private void safePass() {
    if (!active) {
      return;
    }
    try {
      runPass();
    } catch (RuntimeException e) {
      // A bad object or a bug must not stop the loop: log it and try again on the next pass.
      LOG.error("admission pass failed; retrying on the next pass", e);
    }
  }

  /** What the loop reads (the informer caches); for tests in this package. */
  ClusterView view() {
    return view;
  }

  /** One pass; synchronous, for the loop thread and for tests. */
  public synchronized PassReport runPass() {
    Instant now = clock.instant();
    // 1. Read the caches.
    List<BatchJob> jobs = new ArrayList<>(view.jobs());
    List<BatchNode> nodes = new ArrayList<>(view.nodes());
    Map<JobKey, BatchJob> byKey = new HashMap<>();
    jobs.forEach(j -> byKey.put(key(j), j));

    // 2. Forget assumptions the cache has caught up with (or whose job is gone).
    assumed.retainOnly(
        k -> {
          BatchJob j = byKey.get(k);
          return j != null && snapshots.effectivePhase(j) == JobPhase.Queued;
        });
    gate.retain(jobs);

    // 3. Decide, over an immutable snapshot.
    long t0 = System.nanoTime();
    Snapshot snapshot = snapshots.build(jobs, nodes, assumed, policy, now);
    AdmissionResult result = AdmissionPass.decide(snapshot);
    Duration decideTime = Duration.ofNanos(System.nanoTime() - t0);
    metrics.recordPass(decideTime);

    // 4. Compose the statuses of decided jobs; reserve admissions before any write goes out.
    List<Write> writes = new ArrayList<>();
    int skipped = 0;
    int admitted = 0;
    for (Map.Entry<JobKey, Decision> e : result.decisions().entrySet()) {
      BatchJob job = byKey.get(e.getKey());
      if (job == null
          || assumed.get(e.getKey(), job.getMetadata().getUid()) != null
          || gate.cacheBehindOurWrite(job)) {
        continue;
      }
      StatusComposer.Composed c = StatusComposer.decided(job, e.getValue(), now);
      if (!gate.needsWrite(job, c.status(), now)) {
        skipped++;
        continue;
      }
      if (e.getValue() instanceof Decision.Admit a) {
        assumed.assume(e.getKey(), a.node(), job.getMetadata().getUid());
        admitted++;
      }
      writes.add(new Write(job, c, e.getValue() instanceof Decision.Admit));
    }

    // 5. Follow admitted and running jobs: Pods to create, runs that started or finished, usage.
    Map<String, BatchNode> nodeByName = new HashMap<>();
    nodes.forEach(n -> nodeByName.put(n.getMetadata().getName(), n));
    List<Pod> podsToCreate = new ArrayList<>();
    Map<String, Pod> podByJobUid = new HashMap<>();
    view.jobPods()
        .forEach(
            p -> {
              if (p.getMetadata().getLabels() != null
                  && p.getMetadata().getLabels().get(Labels.JOB_UID) != null) {
                podByJobUid.put(p.getMetadata().getLabels().get(Labels.JOB_UID), p);
              }
            });
    for (BatchJob job : jobs) {
      JobPhase phase = snapshots.effectivePhase(job);
      if (!phase.holdsReservation()
          || job.getStatus() == null
          || job.getStatus().getNode() == null
          || gate.cacheBehindOurWrite(job)) {
        continue;
      }
      BatchNode node = nodeByName.get(job.getStatus().getNode());
      boolean podNode =
          node != null && node.getSpec() != null && node.getSpec().getExecutor() == Executor.Pod;
      Pod pod = podNode ? podByJobUid.get(job.getMetadata().getUid()) : null;
      if (podNode
          && pod == null
          && phase == JobPhase.Admitted
          && podsRequested.add(job.getMetadata().getUid())) {
        podsToCreate.add(PodFactory.podFor(job, job.getStatus().getNode()));
      }
      RunObservation run = RunObserver.observe(pod, reported(node, job), podNode, phase);
      StatusComposer.Composed c = StatusComposer.running(job, run, now);
      if (!c.status().equals(job.getStatus())) {
        writes.add(new Write(job, c, false));
      }
    }

    // A Pod asked for is not asked for again until the cache shows it (or its job is gone).
    podsRequested.retainAll(
        jobs.stream()
            .filter(j -> !podByJobUid.containsKey(j.getMetadata().getUid()))
            .map(j -> j.getMetadata().getUid())
            .collect(Collectors.toSet()));

    // 6. Write, in parallel: Pods of admitted jobs, then statuses, each conditional on the version
    // it was decided on.
    createAll(podsToCreate);
    int[] outcome = writeAll(writes, now);

    // 7. Say so on nodes whose agent went silent (admission already passed them over).
    markSilentNodes(nodes, now);
    metrics.admitted(outcome[2]);
    updateGauges(jobs, result);
    return new PassReport(
        result.decisions().size(), admitted, outcome[0], outcome[1], skipped, decideTime);
  }

  private record Write(BatchJob job, StatusComposer.Composed composed, boolean admission) {}

  private void markSilentNodes(List<BatchNode> nodes, Instant now) {
    for (BatchNode node : nodes) {
      NodeLiveness.markedNotReporting(node, now, policy.nodeHeartbeatTimeout())
          .ifPresent(
              conditions -> {
                ClusterWriter.Result r = writer.writeNodeConditions(node, conditions);
                if (r == ClusterWriter.Result.WRITTEN) {
                  LOG.info(
                      "node {}: agent not reporting, marked Ready=Unknown",
                      node.getMetadata().getName());
                }
                // A conflict means the agent just reported: its status stands and the next pass
                // looks again.
              });
    }
  }

  private void createAll(List<Pod> pods) {
    List<CompletableFuture<Void>> futures = new ArrayList<>();
    for (Pod p : pods) {
      futures.add(
          CompletableFuture.runAsync(
              () -> {
                if (!writer.createPod(p)) {
                  // Failed: ask again on the next pass.
                  podsRequested.remove(p.getMetadata().getLabels().get(Labels.JOB_UID));
                }
              },
              writers));
    }
    futures.forEach(CompletableFuture::join);
  }

  private int[] writeAll(List<Write> writes, Instant now) {
    List<CompletableFuture<ClusterWriter.Result>> futures = new ArrayList<>();
    for (Write w : writes) {
      futures.add(CompletableFuture.supplyAsync(() -> write(w, now), writers));
    }
    int written = 0;
    int conflicts = 0;
    int admissions = 0;
    for (int i = 0; i < futures.size(); i++) {
      ClusterWriter.Result r = futures.get(i).join();
      if (r == ClusterWriter.Result.WRITTEN) {
        written++;
        if (writes.get(i).admission()) {
          admissions++;
        }
      } else if (r == ClusterWriter.Result.CONFLICT) {
        conflicts++;
      }
    }
    if (conflicts > 0) {
      requestPass(); // decide again on fresh data
    }
    return new int[] {written, conflicts, admissions};
  }

  private ClusterWriter.Result write(Write w, Instant now) {
    BatchJob job = w.job();
    JobKey k = key(job);
    BatchJobStatus next = w.composed().status();
    // Fold a finished run into its type's drift record before the job is marked finished, so a
    // crash in between folds it again next pass (the fold is idempotent by job uid).
    if (next.getPhase() != null
        && (next.getPhase() == JobPhase.Succeeded || next.getPhase() == JobPhase.Failed)
        && job.getStatus() != null
        && !job.getStatus().getPhase().isFinished()) {
      foldDrift(job, next);
    }
    ClusterWriter.Result r = writer.writeStatus(job, next);
    metrics.statusWrite(r);
    if (r == ClusterWriter.Result.WRITTEN) {
      gate.written(job, now);
      w.composed().events().forEach(e -> events.execute(() -> writer.recordEvent(job, e)));
    } else if (w.admission()) {
      assumed.forget(k); // the admission did not land: nothing is held, decide again
    }
    return r;
  }

  private void foldDrift(BatchJob job, BatchJobStatus finished) {
    String type = job.getSpec() == null ? null : job.getSpec().getType();
    if (type == null || finished.getUsage() == null || finished.getUsage().isEmpty()) {
      return;
    }
    Resources r = job.getSpec().getResources();
    FinishedRun run =
        new FinishedRun(
            job.getMetadata().getUid(),
            type,
            r == null ? null : r.getRequests(),
            r == null ? null : r.getLimits(),
            finished.getUsage());
    writer.foldDrift(job.getMetadata().getNamespace(), run, rec -> drift.fold(rec, run));
  }

  private static NodeJob reported(BatchNode node, BatchJob job) {
    if (node == null || node.getStatus() == null || node.getStatus().getJobs() == null) {
      return null;
    }
    String uid = job.getMetadata().getUid();
    for (NodeJob nj : node.getStatus().getJobs()) {
      if (uid != null && uid.equals(nj.getUid())) {
        return nj;
      }
    }
    return null;
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

  private static JobKey key(BatchJob j) {
    return new JobKey(j.getMetadata().getNamespace(), j.getMetadata().getName());
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    active = false;
    loop.shutdownNow();
    writers.shutdown();
    events.shutdown();
    try {
      writers.awaitTermination(10, TimeUnit.SECONDS);
      events.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
