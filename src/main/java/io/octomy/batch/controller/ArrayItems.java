package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.admission.ArrayShape;
import io.octomy.batch.api.Api;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.vocabulary.Labels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The items of an array job ({@code spec.array}): how one is made from its parent, and how an item
 * is told from other jobs (a BatchJob owner reference that is the controller, and its index label).
 */
final class ArrayItems {

  /** The variable each item's containers get, holding its index. */
  static final String INDEX_VARIABLE = "OCTOMY_ARRAY_INDEX";

  private static final String KIND = "BatchJob";

  private static final String API_VERSION = Api.GROUP + "/" + Api.VERSION;

  private ArrayItems() {}

  /** Whether the job is an array's parent: it runs nothing itself. */
  static boolean isParent(BatchJob job) {
    return job.getSpec() != null && job.getSpec().arrayJob();
  }

  /** The name of item {@code index} of the array job {@code parent}. */
  static String name(String parent, int index) {
    return ArrayShape.itemName(parent, index);
  }

  /** The uid of the array job that owns {@code job}, or null when it is no array's item. */
  static String parentUid(BatchJob job) {
    List<OwnerReference> owners = job.getMetadata().getOwnerReferences();
    if (owners == null) {
      return null;
    }
    for (OwnerReference o : owners) {
      if (Boolean.TRUE.equals(o.getController())
          && KIND.equals(o.getKind())
          && API_VERSION.equals(o.getApiVersion())) {
        return o.getUid();
      }
    }
    return null;
  }

  /** The item's index from its label, or -1 when it has none that reads as one. */
  static int index(BatchJob item) {
    Map<String, String> labels = item.getMetadata().getLabels();
    String text = labels == null ? null : labels.get(Labels.ARRAY_INDEX);
    if (text == null) {
      return -1;
    }
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Item {@code index} of {@code parent}: the parent's spec without {@code array} and without a TTL
   * (items go with their parent), {@value #INDEX_VARIABLE} set in every container (the kubelet and
   * the agent expand {@code $(OCTOMY_ARRAY_INDEX)} in command and args from it), the array's two
   * labels, and an owner reference to the parent that blocks its deletion in the foreground until
   * the item is gone.
   */
  static BatchJob item(BatchJob parent, int index) {
    ObjectMeta pm = parent.getMetadata();
    BatchJobSpec spec =
        Serialization.jsonMapper().convertValue(parent.getSpec(), BatchJobSpec.class);
    spec.setArray(null);
    spec.setTtlSecondsAfterFinished(null);
    if (spec.getTemplate() != null && spec.getTemplate().getSpec() != null) {
      withIndex(spec.getTemplate().getSpec().getContainers(), index);
      withIndex(spec.getTemplate().getSpec().getInitContainers(), index);
    }
    // Only the array's labels, not the array job's own: an item is not in anyone's manifests, and
    // `kubectl apply --prune -l SELECTOR` or a GitOps tool tracking by label would take it for a
    // leftover of theirs and delete it.
    Map<String, String> labels = new HashMap<>();
    labels.put(Labels.ARRAY, pm.getName());
    labels.put(Labels.ARRAY_INDEX, Integer.toString(index));
    ObjectMeta meta = new ObjectMeta();
    meta.setName(name(pm.getName(), index));
    meta.setNamespace(pm.getNamespace());
    meta.setLabels(labels);
    meta.setOwnerReferences(
        List.of(
            new OwnerReferenceBuilder()
                .withApiVersion(API_VERSION)
                .withKind(KIND)
                .withName(pm.getName())
                .withUid(pm.getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build()));
    BatchJob item = new BatchJob();
    item.setMetadata(meta);
    item.setSpec(spec);
    return item;
  }

  private static void withIndex(List<Container> containers, int index) {
    if (containers == null) {
      return;
    }
    for (Container c : containers) {
      // First, so that the values of the variables after it may refer to it too.
      List<EnvVar> env = new ArrayList<>();
      env.add(new EnvVar(INDEX_VARIABLE, Integer.toString(index), null));
      if (c.getEnv() != null) {
        c.getEnv().stream().filter(v -> !INDEX_VARIABLE.equals(v.getName())).forEach(env::add);
      }
      c.setEnv(env);
    }
  }
}
