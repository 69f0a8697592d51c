package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.EndedRun;
import io.octomy.batch.api.Resources;
import io.octomy.batch.controller.drift.DriftFolder;
import io.octomy.batch.controller.drift.FinishedRun;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writing, the third job of a pass: the Pods of admitted jobs first, then the statuses, in parallel
 * on the status writers, each conditional on the version it was decided on. A finished run is
 * folded into its type's drift record before its job is marked finished. Events go out after their
 * status landed, on their own queue.
 *
 * <p>The statuses are sent, not awaited: {@link #send} returns once they are on the writers' queue,
 * with a future of their answers. Until a job's write is answered the {@link StatusWriteGate} holds
 * the job as pending, so the next pass, which may start meanwhile, neither writes it again nor
 * decides on its outgoing version; an admission among them stays assumed ({@link
 * AssumedAdmissions}) until the cache shows it, so its place is never booked twice.
 */
final class WriteStep {

  private static final Logger LOG = LoggerFactory.getLogger(WriteStep.class);

  /**
   * How the writes of one pass ended.
   *
   * @param written statuses that landed
   * @param conflicts statuses refused because the job changed since it was read (409)
   * @param gone statuses of jobs deleted meanwhile (404)
   * @param failed statuses that failed otherwise (timeouts, server errors)
   * @param admissionsWritten admissions among the statuses that landed
   * @param podsCreated Pods created (or found to exist)
   * @param podsFailed Pods that could not be created (asked for again on the next pass)
   */
  record Written(
      int written,
      int conflicts,
      int gone,
      int failed,
      int admissionsWritten,
      int podsCreated,
      int podsFailed) {}

  /** The Event on a job finished without its run in its type's drift record. */
  static final String DRIFT_NOT_RECORDED = "DriftNotRecorded";

  /** How long after its end a finished job waits for an unanswered fold before it is finished. */
  static final Duration FOLD_PATIENCE = Duration.ofMinutes(5);

  private final ClusterWriter writer;
  private final ControllerMetrics metrics;
  private final StatusWriteGate gate;
  private final AssumedAdmissions assumed;
  private final DriftFolder drift = new DriftFolder();
  private final Executor writers;
  private final EventRecorder events;
  private final Runnable onAnswered;

  /**
   * @param onAnswered called on the writer's thread after each status write is answered (and the
   *     gate told)
   */
  WriteStep(
      ClusterWriter writer,
      ControllerMetrics metrics,
      StatusWriteGate gate,
      AssumedAdmissions assumed,
      Executor writers,
      EventRecorder events,
      Runnable onAnswered) {
    this.onAnswered = onAnswered;
    this.writer = writer;
    this.metrics = metrics;
    this.gate = gate;
    this.assumed = assumed;
    this.writers = writers;
    this.events = events;
  }

  /**
   * Creates the Pods (awaited), then sends the statuses.
   *
   * @return completes once every status write has its answer
   */
  CompletableFuture<Written> send(
      List<Pod> pods, List<StatusWrite> writes, Instant now, Consumer<Pod> podFailed) {
    List<CompletableFuture<Boolean>> podFutures = new ArrayList<>();
    for (Pod p : pods) {
      podFutures.add(CompletableFuture.supplyAsync(() -> writer.createPod(p), writers));
    }
    int podsCreated = 0;
    for (int i = 0; i < podFutures.size(); i++) {
      if (podFutures.get(i).join()) {
        podsCreated++;
      } else {
        podFailed.accept(pods.get(i));
      }
    }

    // What the answers are counted by is taken now: holding the writes until the last is answered
    // would keep each job as read long after its own write landed (a second copy of every job
    // while a large pass's writes trickle out).
    List<CompletableFuture<ClusterWriter.Result>> futures = new ArrayList<>();
    boolean[] admission = new boolean[writes.size()];
    for (int i = 0; i < writes.size(); i++) {
      StatusWrite w = writes.get(i);
      admission[i] = w.admission();
      gate.sending(w.job());
      futures.add(CompletableFuture.supplyAsync(() -> answered(w, now), writers));
    }
    int created = podsCreated;
    return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              int[] byResult = new int[ClusterWriter.Result.values().length];
              int admissions = 0;
              for (int i = 0; i < futures.size(); i++) {
                ClusterWriter.Result r = futures.get(i).join();
                byResult[r.ordinal()]++;
                if (r == ClusterWriter.Result.WRITTEN && admission[i]) {
                  admissions++;
                }
              }
              return new Written(
                  byResult[ClusterWriter.Result.WRITTEN.ordinal()],
                  byResult[ClusterWriter.Result.CONFLICT.ordinal()],
                  byResult[ClusterWriter.Result.GONE.ordinal()],
                  byResult[ClusterWriter.Result.FAILED.ordinal()],
                  admissions,
                  created,
                  pods.size() - created);
            });
  }

  /**
   * One status write, the gate told once it is answered. An unexpected error counts as a write
   * without an answer (logged); an admission among them stays assumed, as after a timeout.
   */
  private ClusterWriter.Result answered(StatusWrite w, Instant now) {
    try {
      return write(w, now);
    } catch (RuntimeException e) {
      LOG.error(
          "status write for {}/{} failed",
          w.job().getMetadata().getNamespace(),
          w.job().getMetadata().getName(),
          e);
      metrics.statusWrite(ClusterWriter.Result.FAILED);
      return ClusterWriter.Result.FAILED;
    } finally {
      gate.answered(w.job());
      onAnswered.run();
    }
  }

  /** Deletes the Pods of jobs being deleted; returns how many deletes were sent without error. */
  int deletePods(List<Pod> pods) {
    List<CompletableFuture<Boolean>> futures = new ArrayList<>();
    for (Pod p : pods) {
      futures.add(CompletableFuture.supplyAsync(() -> writer.deletePod(p), writers));
    }
    return (int) futures.stream().filter(CompletableFuture::join).count();
  }

  private ClusterWriter.Result write(StatusWrite w, Instant now) {
    BatchJob job = w.job();
    BatchJobStatus next = w.composed().status();
    // Fold a finished run into its type's drift record before the job is marked finished, so a
    // crash in between folds it again next pass (the fold is idempotent by job uid).
    JobEvent notFolded = null;
    // A retried run is folded the same way, as the job goes back to the queue: every run counts.
    boolean retried =
        next.getPhase() == JobPhase.Queued
            && job.getStatus() != null
            && next.currentRun() > job.getStatus().currentRun()
            && next.getRuns() != null
            && !next.getRuns().isEmpty();
    if (retried
        || ((next.getPhase() == JobPhase.Succeeded || next.getPhase() == JobPhase.Failed)
            && job.getStatus() != null
            && !job.getStatus().getPhase().isFinished())) {
      ClusterWriter.DriftFold fold = retried ? foldRetried(job, next) : foldDrift(job, next);
      if (fold.outcome() == ClusterWriter.FoldOutcome.UNANSWERED && !foldOverdue(next, now)) {
        // The run is not in its drift record yet: the job is marked finished only once it is, so
        // a failed fold is tried again next pass instead of losing the run.
        metrics.statusWrite(ClusterWriter.Result.FAILED);
        return ClusterWriter.Result.FAILED;
      }
      if (fold.outcome() != ClusterWriter.FoldOutcome.FOLDED) {
        // Refused for good, or unanswered for longer than a job may wait for it: finishing the
        // job (and freeing its place) does not wait on its drift record any longer.
        notFolded =
            JobEvent.warning(
                DRIFT_NOT_RECORDED,
                "This run is not in the drift record of type "
                    + job.getSpec().getType()
                    + " (BatchJobProfile "
                    + job.getMetadata().getNamespace()
                    + "/"
                    + job.getSpec().getType()
                    + "): the server answered "
                    + fold.detail()
                    + ". The job is finished without it.");
      }
    }
    JobKey key = new JobKey(job.getMetadata().getNamespace(), job.getMetadata().getName());
    BatchJob target = job;
    if (w.admission() && !ReservationFinalizer.on(job)) {
      // The finalizer first, so that no job ever holds a place the server would let go of with
      // the object (the status subresource cannot carry it: a write of its own, conditional on
      // the version decided on). Until it lands nothing of the admission is written.
      List<String> finalizers = ReservationFinalizer.added(job);
      ClusterWriter.FinalizersWritten f = writer.writeFinalizers(job, finalizers);
      if (f.result() != ClusterWriter.Result.WRITTEN) {
        metrics.statusWrite(f.result());
        assumed.forget(key);
        return f.result();
      }
      target = ReservationFinalizer.after(job, f.resourceVersion(), finalizers);
    }
    ClusterWriter.Result r = writer.writeStatus(target, next);
    metrics.statusWrite(r);
    if (r == ClusterWriter.Result.WRITTEN) {
      gate.written(job, now);
      w.composed().events().forEach(e -> events.record(job, e));
      if (notFolded != null) {
        events.record(job, notFolded);
      }
    } else if (w.admission()) {
      if (r == ClusterWriter.Result.FAILED) {
        // No answer: it may have landed. Held until read back (AdmissionReadBack).
        assumed.uncertain(
            key,
            Set.copyOf(
                List.of(
                    job.getMetadata().getResourceVersion(),
                    target.getMetadata().getResourceVersion())));
      } else {
        // 409 or 404: it did not land; nothing is held, decide again.
        assumed.forget(key);
      }
    }
    return r;
  }

  /**
   * Removes the controller's finalizer from jobs that hold nothing any more (see {@link
   * ReservationFinalizer#toRelease}); completes with how many conflicted (decided again on fresh
   * data). A release sent is not sent again while it is out ({@link ReservationFinalizer#sent}).
   */
  CompletableFuture<Integer> release(List<BatchJob> jobs, ReservationFinalizer finalizer) {
    List<CompletableFuture<ClusterWriter.Result>> futures = new ArrayList<>();
    for (BatchJob j : jobs) {
      finalizer.sent(j);
      futures.add(
          CompletableFuture.supplyAsync(
              () -> writer.writeFinalizers(j, ReservationFinalizer.removed(j)).result(), writers));
    }
    return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .handle(
            (v, e) -> {
              int conflicts = 0;
              for (int i = 0; i < futures.size(); i++) {
                ClusterWriter.Result r =
                    futures.get(i).isCompletedExceptionally()
                        ? ClusterWriter.Result.FAILED
                        : futures.get(i).join();
                if (r == ClusterWriter.Result.CONFLICT || r == ClusterWriter.Result.FAILED) {
                  finalizer.notSent(jobs.get(i));
                  conflicts++;
                }
              }
              return conflicts;
            });
  }

  /**
   * True once the run ended more than {@link #FOLD_PATIENCE} ago by its own record: an unanswered
   * fold no longer holds the job (and its place) back. Without an end time it waits.
   */
  private static boolean foldOverdue(BatchJobStatus finished, Instant now) {
    Instant ended = Times.parse(finished.getFinishedAt());
    return ended != null && now.isAfter(ended.plus(FOLD_PATIENCE));
  }

  /** Folds the finished run into its type's record; done when nothing is to be folded. */
  private ClusterWriter.DriftFold foldDrift(BatchJob job, BatchJobStatus finished) {
    String type = job.getSpec() == null ? null : job.getSpec().getType();
    Long runSeconds = runSeconds(finished);
    boolean measured = finished.getUsage() != null && !finished.getUsage().isEmpty();
    if (type == null || (!measured && runSeconds == null)) {
      return ClusterWriter.DriftFold.DONE;
    }
    Resources r = job.getSpec().getResources();
    // What it held is what it was admitted with; the spec is the fallback for older records.
    AdmissionRecord held = job.getStatus() == null ? null : job.getStatus().getAdmission();
    Map<String, Long> requested =
        held != null ? held.getRequests() : r == null ? null : r.getRequests();
    FinishedRun run =
        new FinishedRun(
            runId(job, finished.currentRun()),
            type,
            requested,
            r == null ? null : r.getLimits(),
            finished.getUsage(),
            runSeconds);
    return writer.foldDrift(job.getMetadata().getNamespace(), run, rec -> drift.fold(rec, run));
  }

  /** The run just retried, from its entry in {@code status.runs}; done when nothing is folded. */
  private ClusterWriter.DriftFold foldRetried(BatchJob job, BatchJobStatus next) {
    EndedRun ended = next.getRuns().get(next.getRuns().size() - 1);
    BatchJobStatus asFinished = new BatchJobStatus();
    asFinished.setRun(ended.getRun());
    asFinished.setUsage(ended.getUsage());
    asFinished.setStartedAt(ended.getStartedAt());
    asFinished.setFinishedAt(ended.getFinishedAt());
    asFinished.setExitCode(ended.getExitCode());
    return foldDrift(job, asFinished);
  }

  /**
   * The name a run is folded under: the job's uid for its first run (as before runs were numbered),
   * with {@code #N} for a retry's run N, so each run is folded once.
   */
  static String runId(BatchJob job, int run) {
    String uid = job.getMetadata().getUid();
    return run == 1 ? uid : PodFactory.runId(uid, run);
  }

  /**
   * Start to finish in whole seconds, or null when either end is unknown or the run did not end
   * with an exit code: a job lost with its agent or whose Pod vanished was not seen to end, so the
   * time until that was noticed is not a run time.
   */
  static Long runSeconds(BatchJobStatus finished) {
    Instant started = Times.parse(finished.getStartedAt());
    Instant ended = Times.parse(finished.getFinishedAt());
    if (started == null || ended == null || ended.isBefore(started)) {
      return null;
    }
    return finished.getExitCode() == null ? null : Duration.between(started, ended).toSeconds();
  }
}
