package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.vocabulary.Labels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure: the one Pod of an admitted job on a Pod node (one per replica of a gang). Bound to the node
 * (no scheduler involved), owned by the BatchJob (deleting the job deletes the Pod), named after
 * the job's uid so that a second create after a restart finds the first one instead of starting the
 * job twice. No resource limits are added: our limits are measured against, never enforced.
 */
public final class PodFactory {

  private PodFactory() {}

  /** The Pod's name of a job of one replica: {@link #podName(BatchJob, int)} of replica 0. */
  public static String podName(BatchJob job) {
    return podName(job, 0);
  }

  /**
   * The Pod's name: the job's name (shortened) and the start of its uid, then {@code -rN} for a
   * retry's run N, so that each run has its own Pod and the earlier ones stay readable; a gang's
   * Pods end with their replica's index ({@code -0}, {@code -1} ...), so each can be told apart.
   */
  public static String podName(BatchJob job, int replica) {
    String name = job.getMetadata().getName();
    String uid =
        job.getMetadata().getUid() == null ? "0" : job.getMetadata().getUid().replace("-", "");
    int run = run(job);
    String suffix =
        "-"
            + uid.substring(0, Math.min(8, uid.length()))
            + (run == 1 ? "" : "-r" + run)
            + (GangReplicas.isGang(job) ? "-" + replica : "");
    int max = 253 - suffix.length();
    return (name.length() > max ? name.substring(0, max) : name) + suffix;
  }

  /** The job's current run number, 1 when its status has none. */
  static int run(BatchJob job) {
    return job.getStatus() == null ? 1 : job.getStatus().currentRun();
  }

  /** One run of one job, as {@code uid#run}: how Pods and agent reports are matched to runs. */
  public static String runId(String uid, int run) {
    return uid + "#" + run;
  }

  /**
   * One replica of one run, as {@code uid#run} for replica 0 and {@code uid#run/I} after it (as
   * {@link io.octomy.batch.api.NodeJob#runId}): how a gang's Pods are matched to replicas.
   */
  public static String runId(String uid, int run, int replica) {
    return runId(uid, run) + (replica == 0 ? "" : "/" + replica);
  }

  /** The Pod of a job of one replica. */
  public static Pod podFor(BatchJob job, String node) {
    return podFor(job, node, 0);
  }

  /**
   * The Pod of one replica, on its node, with OCTOMY_REPLICA_INDEX, OCTOMY_REPLICA_COUNT and
   * OCTOMY_REPLICA_NODES first in every container's environment (so the template may name them as
   * $(NAME)) in place of any the template sets.
   */
  public static Pod podFor(BatchJob job, String node, int replica) {
    PodTemplateSpec template = job.getSpec().getTemplate();
    // A deep copy: the informer's object must not be changed.
    PodTemplateSpec t = Serialization.clone(template == null ? new PodTemplateSpec() : template);
    ObjectMeta tm = t.getMetadata() == null ? new ObjectMeta() : t.getMetadata();
    Map<String, String> labels =
        new LinkedHashMap<>(tm.getLabels() == null ? Map.of() : tm.getLabels());
    labels.put(Labels.JOB, truncateLabel(job.getMetadata().getName()));
    labels.put(Labels.JOB_UID, job.getMetadata().getUid());
    if (run(job) > 1) {
      labels.put(Labels.RUN, Integer.toString(run(job)));
    } else {
      labels.remove(Labels.RUN);
    }
    if (GangReplicas.isGang(job)) {
      labels.put(Labels.REPLICA, Integer.toString(replica));
    } else {
      labels.remove(Labels.REPLICA);
    }
    PodSpec spec = t.getSpec() == null ? new PodSpec() : t.getSpec();
    List<EnvVar> told =
        GangReplicas.variables(job, replica).entrySet().stream()
            .map(e -> new EnvVar(e.getKey(), e.getValue(), null))
            .toList();
    for (Container c : spec.getContainers() == null ? List.<Container>of() : spec.getContainers()) {
      List<EnvVar> env = new ArrayList<>(told);
      if (c.getEnv() != null) {
        c.getEnv().stream()
            .filter(v -> told.stream().noneMatch(o -> o.getName().equals(v.getName())))
            .forEach(env::add);
      }
      c.setEnv(env);
    }
    spec.setNodeName(node);
    if (spec.getRestartPolicy() == null || "Always".equals(spec.getRestartPolicy())) {
      spec.setRestartPolicy(
          "Never"); // a batch job runs once; the controller decides about retries, not the kubelet
    }
    Pod pod = new Pod();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(podName(job, replica));
    meta.setNamespace(job.getMetadata().getNamespace());
    meta.setLabels(labels);
    meta.setAnnotations(tm.getAnnotations());
    meta.setOwnerReferences(
        List.of(
            new OwnerReferenceBuilder()
                .withApiVersion(job.getApiVersion())
                .withKind(job.getKind())
                .withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build()));
    pod.setMetadata(meta);
    pod.setSpec(spec);
    return pod;
  }

  /** Label values are at most 63 characters. */
  private static String truncateLabel(String v) {
    return v.length() <= 63 ? v : v.substring(0, 63).replaceAll("[^A-Za-z0-9]+$", "");
  }
}
