package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.vocabulary.Finalizers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The controller's finalizer on jobs that hold a place ({@link Finalizers#RESERVATION}): which jobs
 * must let it go, and the finalizer lists that add or remove it.
 *
 * <p>Why no capacity is handed out twice across restarts: the finalizer is on the server before any
 * admission is (the admission's status write is conditional on the version the finalizer write
 * produced), so every job that holds a place is kept by the server until the controller sees its
 * work stopped; a restarted controller reads those jobs, with their admission records and their
 * {@code deletionTimestamp}, from its fresh cache and counts them as before. Nothing of it is kept
 * only in memory except the releases in flight below, and a release sent twice is refused (409) or
 * finds the finalizer gone.
 */
final class ReservationFinalizer {

  /**
   * The resourceVersion each job's release was sent at, by uid, until the cache moves past it. By
   * uid rather than a joined {@code uid@version} text: a pass looks up every cached job, and a
   * lookup by the cached uid costs no new text to build and hash.
   */
  private final Map<String, String> releasing = new ConcurrentHashMap<>();

  private final FinalizerRelease release;

  ReservationFinalizer(FinalizerRelease release) {
    this.release = release;
  }

  /** True when the job carries the controller's finalizer. */
  static boolean on(BatchJob job) {
    List<String> f = job.getMetadata().getFinalizers();
    return f != null && f.contains(Finalizers.RESERVATION);
  }

  /** The job's finalizers with the controller's added at the end. */
  static List<String> added(BatchJob job) {
    List<String> out = new ArrayList<>();
    if (job.getMetadata().getFinalizers() != null) {
      out.addAll(job.getMetadata().getFinalizers());
    }
    if (!out.contains(Finalizers.RESERVATION)) {
      out.add(Finalizers.RESERVATION);
    }
    return out;
  }

  /** The job's finalizers without the controller's, in their order. */
  static List<String> removed(BatchJob job) {
    List<String> out = new ArrayList<>(job.getMetadata().getFinalizers());
    out.removeIf(Finalizers.RESERVATION::equals);
    return out;
  }

  /** The job as the server holds it after a finalizer write landed: new version, new list. */
  static BatchJob after(BatchJob job, String resourceVersion, List<String> finalizers) {
    BatchJob copy = new BatchJob();
    copy.setMetadata(
        new ObjectMetaBuilder(job.getMetadata())
            .withResourceVersion(resourceVersion)
            .withFinalizers(finalizers)
            .build());
    copy.setSpec(job.getSpec());
    copy.setStatus(job.getStatus());
    return copy;
  }

  /**
   * The jobs whose finalizer the controller removes now: they carry it and hold nothing any more.
   * That is a job that finished (Succeeded or Failed: its run ended, or was ended by the node-loss
   * rule; with {@link FinalizerRelease#AT_DELETE} only once it is being deleted), or one being
   * deleted that holds no place (Queued, Skipped, Rejected). A job with an admission of ours in
   * flight or uncertain holds a place whatever its cached status says, and a job whose cached copy
   * is one our own write replaced is left until the cache catches up.
   */
  List<BatchJob> toRelease(
      Collection<BatchJob> jobs,
      SnapshotBuilder snapshots,
      AssumedAdmissions assumed,
      StatusWriteGate gate) {
    List<BatchJob> out = new ArrayList<>();
    Set<String> stillReleasing = releasing.isEmpty() ? Set.of() : new HashSet<>();
    for (BatchJob job : jobs) {
      if (!releasing.isEmpty() && on(job) && sentAtThisVersion(job)) {
        stillReleasing.add(uidOf(job));
        continue;
      }
      boolean deleting = job.getMetadata().getDeletionTimestamp() != null;
      var phase = snapshots.effectivePhase(job);
      boolean finishedGoes = phase.isFinal() && release == FinalizerRelease.AT_FINISH;
      // An array job's status says Running while its items run, but it never holds a place.
      boolean holdsNothing =
          finishedGoes || ArrayItems.isParent(job) || (deleting && !phase.holdsReservation());
      // The finalizer list is read last: most jobs wait or run, and reading every job's list cost
      // a cache miss per job on a long queue.
      if (holdsNothing
          && on(job)
          && assumed.get(
                  new JobKey(job.getMetadata().getNamespace(), job.getMetadata().getName()),
                  job.getMetadata().getUid())
              == null
          && !gate.ourWritePending(job)) {
        out.add(job);
      }
    }
    if (!releasing.isEmpty()) {
      releasing.keySet().retainAll(stillReleasing);
    }
    return out;
  }

  /** A release of this job, as read, was sent: not again until the cache shows another version. */
  void sent(BatchJob job) {
    releasing.put(uidOf(job), versionOf(job));
  }

  /** A release did not land: it may be sent again on the next pass. */
  void notSent(BatchJob job) {
    releasing.remove(uidOf(job), versionOf(job));
  }

  private boolean sentAtThisVersion(BatchJob job) {
    return versionOf(job).equals(releasing.get(uidOf(job)));
  }

  /** The uid as a map key; a job read from a server always has one. */
  private static String uidOf(BatchJob job) {
    return Objects.requireNonNullElse(job.getMetadata().getUid(), "");
  }

  private static String versionOf(BatchJob job) {
    return Objects.requireNonNullElse(job.getMetadata().getResourceVersion(), "");
  }
}
