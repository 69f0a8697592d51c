package io.octomy.batch.agent;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The Pod executor's side of the agent: runs nothing (the controller creates the Pods), only
 * measures the Pod of each job placed on this node (each gang replica's) from the Pod's cgroup and
 * reports it with the Pod's phase.
 */
final class PodJobs implements JobTracker {

  private final String nodeName;
  private final Supplier<Collection<Pod>> pods;
  private final Path cgroupRoot;
  private final Map<String, CgroupPodMeter> meters = new HashMap<>();
  private List<Placed> placed = List.of();

  /** A replica of a job placed here (0 for a job of one replica) and its Pod. */
  private record Placed(BatchJob job, int replica, Pod pod) {}

  /**
   * @param nodeName this node
   * @param pods the Pods carrying the {@code batch.octomy.io/job-uid} label (an informer's store)
   * @param cgroupRoot the cgroup v2 mount to find Pod cgroups under
   */
  PodJobs(String nodeName, Supplier<Collection<Pod>> pods, Path cgroupRoot) {
    this.nodeName = nodeName;
    this.pods = pods;
    this.cgroupRoot = cgroupRoot;
  }

  @Override
  public boolean reconcile(InformedJobs jobs) {
    Map<String, Pod> byJobUid = new HashMap<>();
    for (Pod p : pods.get()) {
      Map<String, String> labels = p.getMetadata().getLabels();
      if (labels != null && labels.get(Labels.JOB_UID) != null) {
        // Each run of a retried job has its own Pod, labelled with its number from run 2 on, and
        // each replica of a gang its own, labelled with its index.
        byJobUid.put(
            labels.get(Labels.JOB_UID)
                + "#"
                + labels.getOrDefault(Labels.RUN, "1")
                + "/"
                + labels.getOrDefault(Labels.REPLICA, "0"),
            p);
      }
    }
    List<Placed> now = new ArrayList<>();
    for (BatchJob job : jobs.placedOn(nodeName)) {
      for (int replica : GangReplicas.on(job, nodeName)) {
        Pod pod = byJobUid.get(job.getMetadata().getUid() + "#" + run(job) + "/" + replica);
        if (pod != null) {
          now.add(new Placed(job, replica, pod));
        }
      }
    }
    Set<String> podUids = new HashSet<>();
    now.forEach(p -> podUids.add(p.pod().getMetadata().getUid()));
    meters.keySet().retainAll(podUids);
    boolean changed = now.size() != placed.size();
    placed = now;
    return changed;
  }

  private static int run(BatchJob job) {
    return job.getStatus() == null ? 1 : job.getStatus().currentRun();
  }

  @Override
  public void sample() {
    for (Placed p : placed) {
      if (phase(p.pod()) == JobPhase.Running) {
        meters
            .computeIfAbsent(
                p.pod().getMetadata().getUid(),
                uid -> new CgroupPodMeter(cgroupRoot, uid, Ticker.system()))
            .sample();
      }
    }
  }

  @Override
  public List<NodeJob> reports() {
    List<NodeJob> out = new ArrayList<>();
    for (Placed p : placed) {
      JobPhase phase = phase(p.pod());
      if (phase == null) {
        continue; // Pending: nothing runs yet, nothing to report
      }
      NodeJob j = new NodeJob();
      j.setNamespace(p.job().getMetadata().getNamespace());
      j.setName(p.job().getMetadata().getName());
      j.setUid(p.job().getMetadata().getUid());
      j.setRun(run(p.job()) == 1 ? null : run(p.job()));
      j.setReplica(p.replica() == 0 ? null : p.replica());
      j.setPhase(phase);
      if (p.pod().getStatus() != null) {
        j.setStartedAt(p.pod().getStatus().getStartTime());
      }
      ContainerStateTerminated t = terminated(p.pod());
      if (t != null) {
        j.setExitCode(t.getExitCode());
        j.setFinishedAt(t.getFinishedAt());
        j.setReason(phase == JobPhase.Failed ? t.getReason() : null);
      }
      CgroupPodMeter meter = meters.get(p.pod().getMetadata().getUid());
      NodeJobs.setUsage(j, meter == null ? null : meter.summary());
      out.add(j);
    }
    out.sort(NodeJobs.ORDER);
    return out;
  }

  @Override
  public void close() {
    meters.clear();
  }

  /** Running, Succeeded or Failed; null for Pending or Unknown. */
  static JobPhase phase(Pod pod) {
    String p = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (p == null) {
      return null;
    }
    return switch (p) {
      case "Running" -> JobPhase.Running;
      case "Succeeded" -> JobPhase.Succeeded;
      case "Failed" -> JobPhase.Failed;
      default -> null;
    };
  }

  /**
   * The terminated state of the Pod's first container (the job's main process, as on a Process
   * node). Container statuses are matched by name: their order is not the spec's.
   */
  private static ContainerStateTerminated terminated(Pod pod) {
    if (pod.getStatus() == null
        || pod.getStatus().getContainerStatuses() == null
        || pod.getSpec() == null
        || pod.getSpec().getContainers() == null
        || pod.getSpec().getContainers().isEmpty()) {
      return null;
    }
    String main = pod.getSpec().getContainers().get(0).getName();
    return pod.getStatus().getContainerStatuses().stream()
        .filter(cs -> main != null && main.equals(cs.getName()) && cs.getState() != null)
        .map(cs -> cs.getState().getTerminated())
        .filter(Objects::nonNull)
        .findFirst()
        .orElse(null);
  }
}
