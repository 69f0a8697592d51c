package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Following runs, the second job of a pass: for every admitted or running job, the Pod to create
 * (on a {@code Pod} node), and the status its run calls for (started, finished, usage, over limit),
 * read from its Pod or from what its node's agent reported ({@code Process} node).
 */
final class RunFollower {

  /**
   * What following the runs produced.
   *
   * @param podsToCreate Pods of admitted jobs on Pod nodes that have none yet
   * @param podsToDelete Pods of jobs being deleted: the work stops at once
   * @param writes statuses that changed because a run moved
   */
  record Followed(List<Pod> podsToCreate, List<Pod> podsToDelete, List<StatusWrite> writes) {}

  /** The end of a job on a Pod node deleted before its Pod was created: it never ran. */
  private static final RunObservation DELETED_BEFORE_START =
      new RunObservation(
          JobPhase.Failed,
          null,
          "Deleted",
          null,
          null,
          Map.of(),
          "The job was deleted before it started; it was not started.");

  private final SnapshotBuilder snapshots;
  private final StatusWriteGate gate;

  /** uids of jobs whose Pod was created (or is being created) but is not in the cache yet. */
  private final Set<String> podsRequested = ConcurrentHashMap.newKeySet();

  RunFollower(SnapshotBuilder snapshots, StatusWriteGate gate) {
    this.snapshots = snapshots;
    this.gate = gate;
  }

  Followed follow(
      List<BatchJob> jobs, List<BatchNode> nodes, Collection<Pod> jobPods, Instant now) {
    Map<String, BatchNode> nodeByName = new HashMap<>();
    nodes.forEach(n -> nodeByName.put(n.getMetadata().getName(), n));
    Map<String, Pod> podByJobUid = new HashMap<>();
    for (Pod p : jobPods) {
      String uid = jobUid(p);
      if (uid != null) {
        podByJobUid.put(uid, p);
      }
    }
    List<Pod> podsToCreate = new ArrayList<>();
    List<Pod> podsToDelete = new ArrayList<>();
    List<StatusWrite> writes = new ArrayList<>();
    for (BatchJob job : jobs) {
      JobPhase phase = snapshots.effectivePhase(job);
      if (!phase.holdsReservation()
          || job.getStatus() == null
          || job.getStatus().getNode() == null
          || gate.cacheBehindOurWrite(job)) {
        continue;
      }
      BatchNode node = nodeByName.get(job.getStatus().getNode());
      boolean podNode = executor(job, node) == Executor.Pod;
      Pod pod = podNode ? podByJobUid.get(job.getMetadata().getUid()) : null;
      boolean deleting = job.getMetadata().getDeletionTimestamp() != null;
      if (podNode
          && pod == null
          && phase == JobPhase.Admitted
          && !deleting
          && podsRequested.add(job.getMetadata().getUid())) {
        podsToCreate.add(PodFactory.podFor(job, job.getStatus().getNode()));
      }
      if (deleting && pod != null && pod.getMetadata().getDeletionTimestamp() == null) {
        // Deleting a job stops its work at once (its owner reference alone would wait for the job
        // object, which a finalizer can keep for as long as it likes).
        podsToDelete.add(pod);
      }
      RunObservation run =
          deleting && podNode && pod == null && phase == JobPhase.Admitted
              ? DELETED_BEFORE_START
              : RunObserver.observe(pod, reported(node, job), podNode, phase);
      StatusComposer.Composed c = StatusComposer.running(job, run, now);
      if (!c.status().equals(job.getStatus())) {
        writes.add(new StatusWrite(job, c, false));
      }
    }
    // A Pod asked for is not asked for again until the cache shows it (or its job is gone).
    podsRequested.retainAll(
        jobs.stream()
            .map(j -> j.getMetadata().getUid())
            .filter(uid -> !podByJobUid.containsKey(uid))
            .collect(Collectors.toSet()));
    return new Followed(podsToCreate, podsToDelete, writes);
  }

  /**
   * Who runs the job: the executor recorded when it was admitted (one field decides, so a node
   * whose spec changes later cannot have both a Pod and a process run it); for a job admitted
   * before records were kept, its node's current one.
   */
  static Executor executor(BatchJob job, BatchNode node) {
    AdmissionRecord held = job.getStatus() == null ? null : job.getStatus().getAdmission();
    if (held != null && held.getExecutor() != null) {
      return held.getExecutor();
    }
    return node == null ? null : BatchNodeSpec.executorOf(node.getSpec());
  }

  /** The Pod could not be created: ask for it again on the next pass. */
  void podNotCreated(Pod pod) {
    String uid = jobUid(pod);
    if (uid != null) {
      podsRequested.remove(uid);
    }
  }

  private static String jobUid(Pod p) {
    Map<String, String> labels = p.getMetadata().getLabels();
    return labels == null ? null : labels.get(Labels.JOB_UID);
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
}
