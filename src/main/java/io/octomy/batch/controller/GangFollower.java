package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Following a gang's replicas for the {@link RunFollower}: the Pod of each replica placed on a Pod
 * node, what each replica's run is (its Pod, or its node's agent's entry for that replica), and the
 * gang's run made of them ({@link GangRun}). Replicas may be on Process and Pod nodes alike: each
 * replica's node says how it runs.
 */
final class GangFollower {

  /**
   * What following one gang produced.
   *
   * @param run the gang's run
   * @param podsToCreate Pods of its replicas on Pod nodes that have none yet
   * @param pods the Pods its replicas have now
   */
  record GangSeen(RunObservation run, List<Pod> podsToCreate, List<Pod> pods) {}

  private GangFollower() {}

  /**
   * @param phase the job's phase as the pass sees it
   * @param podsRequested run ids ({@link PodFactory#runId(String, int, int)}) whose Pod was asked
   *     for and is not in the cache yet; a new request is added
   * @param nodeGone for the name of a missing BatchNode: the end of a replica on it once it stayed
   *     missing past the heartbeat timeout, else null
   */
  static GangSeen follow(
      BatchJob job,
      JobPhase phase,
      boolean deleting,
      Map<String, BatchNode> nodeByName,
      Map<String, Pod> podByRun,
      Set<String> podsRequested,
      Function<String, RunObservation> nodeGone) {
    List<String> nodes = GangReplicas.nodes(job);
    String uid = job.getMetadata().getUid();
    int run = PodFactory.run(job);
    List<RunObservation> runs = new ArrayList<>();
    List<Pod> create = new ArrayList<>();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      BatchNode node = nodeByName.get(nodes.get(i));
      boolean podNode = executor(job, node) == Executor.Pod;
      String runId = PodFactory.runId(uid, run, i);
      Pod pod = podNode ? podByRun.get(runId) : null;
      if (pod != null) {
        pods.add(pod);
      }
      if (podNode
          && pod == null
          && phase == JobPhase.Admitted
          && !deleting
          && podsRequested.add(runId)) {
        create.add(PodFactory.podFor(job, nodes.get(i), i));
      }
      RunObservation replica =
          deleting && podNode && pod == null && phase == JobPhase.Admitted
              ? new RunObservation(JobPhase.Failed, null, "Deleted", null, null, Map.of())
              : RunObserver.observe(pod, reported(node, job, i), podNode, phase);
      RunObservation gone = node == null && !podNode ? nodeGone.apply(nodes.get(i)) : null;
      if (gone != null) {
        // No BatchNode, so no agent reports this replica: it is lost with its node.
        replica = gone;
      }
      runs.add(replica);
    }
    return new GangSeen(GangRun.of(runs, nodes, deleting), create, pods);
  }

  /**
   * Pods of gangs whose run is over and that still run: the job ended (another replica failed, its
   * deadline passed) or went on to a later run. A gang's end stops the replicas left, as its agent
   * does on a Process node.
   */
  static List<Pod> leftRunning(Collection<BatchJob> jobs, Collection<Pod> jobPods) {
    Map<String, BatchJob> gangs = new HashMap<>();
    for (BatchJob j : jobs) {
      if (j.getSpec() != null && j.getSpec().replicaCount() > 1) {
        gangs.put(j.getMetadata().getUid(), j);
      }
    }
    List<Pod> out = new ArrayList<>();
    if (gangs.isEmpty()) {
      return out;
    }
    for (Pod p : jobPods) {
      Map<String, String> labels = p.getMetadata().getLabels();
      BatchJob job = labels == null ? null : gangs.get(labels.get(Labels.JOB_UID));
      if (job == null || p.getMetadata().getDeletionTimestamp() != null || ended(p)) {
        continue;
      }
      int podRun;
      try {
        podRun = Integer.parseInt(labels.getOrDefault(Labels.RUN, "1"));
      } catch (NumberFormatException e) {
        continue;
      }
      JobPhase phase = job.getStatus() == null ? null : job.getStatus().getPhase();
      if ((phase != null && phase.isFinished()) || podRun < PodFactory.run(job)) {
        out.add(p);
      }
    }
    return out;
  }

  private static boolean ended(Pod p) {
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /**
   * How a replica runs: as its node runs jobs (a gang may span Process and Pod nodes); on a node
   * that is gone, as the job was admitted.
   */
  static Executor executor(BatchJob job, BatchNode node) {
    if (node != null && node.getSpec() != null) {
      return BatchNodeSpec.executorOf(node.getSpec());
    }
    AdmissionRecord held = job.getStatus() == null ? null : job.getStatus().getAdmission();
    return held == null ? null : held.getExecutor();
  }

  /** The agent's entry for replica {@code replica} of the job's current run, or null. */
  static NodeJob reported(BatchNode node, BatchJob job, int replica) {
    if (node == null || node.getStatus() == null || node.getStatus().getJobs() == null) {
      return null;
    }
    String uid = job.getMetadata().getUid();
    int run = PodFactory.run(job);
    for (NodeJob nj : node.getStatus().getJobs()) {
      if (uid != null
          && uid.equals(nj.getUid())
          && nj.currentRun() == run
          && nj.currentReplica() == replica) {
        return nj;
      }
    }
    return null;
  }
}
