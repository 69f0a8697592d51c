package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.vocabulary.Labels;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure: the one Pod of an admitted job on a Pod node. Bound to the node (no scheduler involved),
 * owned by the BatchJob (deleting the job deletes the Pod), named after the job's uid so that a
 * second create after a restart finds the first one instead of starting the job twice. No resource
 * limits are added: our limits are measured against, never enforced.
 */
public final class PodFactory {

  private PodFactory() {}

  /**
   * The Pod's name: the job's name (shortened) and the start of its uid, then {@code -rN} for a
   * retry's run N, so that each run has its own Pod and the earlier ones stay readable.
   */
  public static String podName(BatchJob job) {
    String name = job.getMetadata().getName();
    String uid =
        job.getMetadata().getUid() == null ? "0" : job.getMetadata().getUid().replace("-", "");
    int run = run(job);
    String suffix =
        "-" + uid.substring(0, Math.min(8, uid.length())) + (run == 1 ? "" : "-r" + run);
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

  public static Pod podFor(BatchJob job, String node) {
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
    PodSpec spec = t.getSpec() == null ? new PodSpec() : t.getSpec();
    spec.setNodeName(node);
    if (spec.getRestartPolicy() == null || "Always".equals(spec.getRestartPolicy())) {
      spec.setRestartPolicy(
          "Never"); // a batch job runs once; the controller decides about retries, not the kubelet
    }
    Pod pod = new Pod();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(podName(job));
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
