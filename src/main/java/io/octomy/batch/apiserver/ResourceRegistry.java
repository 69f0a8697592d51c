package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resources this server serves: the few built-in kinds kubectl, fabric8 and the controller
 * need, plus one entry per installed CustomResourceDefinition (kept in step with CRD writes).
 */
final class ResourceRegistry {

  static final String CRD_GROUP = "apiextensions.k8s.io";

  /**
   * The served kinds a real server puts in the category {@code all}, so that {@code kubectl get
   * all} asks for them as it does of a cluster.
   */
  private static final Set<String> CATEGORY_ALL =
      Set.of(
          "/pods",
          "/services",
          "/replicationcontrollers",
          "apps/daemonsets",
          "apps/deployments",
          "apps/replicasets",
          "apps/statefulsets",
          "batch/cronjobs",
          "batch/jobs");

  private final Map<String, ResourceType> byKey = new ConcurrentHashMap<>();
  private final Set<String> listedOnly = new HashSet<>();

  ResourceRegistry() {
    builtin("", "v1", "namespaces", "Namespace", false, true, List.of("ns"));
    builtin("", "v1", "pods", "Pod", true, true, List.of("po"));
    builtin("", "v1", "events", "Event", true, false, List.of("ev"));
    builtin("", "v1", "configmaps", "ConfigMap", true, false, List.of("cm"));
    builtin("", "v1", "secrets", "Secret", true, false, List.of());
    builtin("", "v1", "services", "Service", true, true, List.of("svc"));
    builtin("", "v1", "serviceaccounts", "ServiceAccount", true, false, List.of("sa"));
    builtin("", "v1", "nodes", "Node", false, true, List.of("no"));
    builtin("events.k8s.io", "v1", "events", "Event", true, false, List.of("ev"));
    builtin("coordination.k8s.io", "v1", "leases", "Lease", true, false, List.of());
    // Listed only: kinds of kubectl's default prune allow-list, which kubectl looks up before it
    // prunes. Nothing on one machine would run them, so they list empty and refuse writes.
    listedOnly("", "endpoints", "Endpoints", true, List.of("ep"));
    listedOnly("", "persistentvolumeclaims", "PersistentVolumeClaim", true, List.of("pvc"));
    listedOnly("", "persistentvolumes", "PersistentVolume", false, List.of("pv"));
    listedOnly("", "replicationcontrollers", "ReplicationController", true, List.of("rc"));
    listedOnly("apps", "daemonsets", "DaemonSet", true, List.of("ds"));
    listedOnly("apps", "deployments", "Deployment", true, List.of("deploy"));
    listedOnly("apps", "replicasets", "ReplicaSet", true, List.of("rs"));
    listedOnly("apps", "statefulsets", "StatefulSet", true, List.of("sts"));
    listedOnly("batch", "cronjobs", "CronJob", true, List.of("cj"));
    listedOnly("batch", "jobs", "Job", true, List.of());
    listedOnly("networking.k8s.io", "ingresses", "Ingress", true, List.of("ing"));
    builtin(
        CRD_GROUP,
        "v1",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        false,
        true,
        List.of("crd", "crds"));
  }

  private void builtin(
      String group,
      String version,
      String plural,
      String kind,
      boolean namespaced,
      boolean hasStatus,
      List<String> shortNames) {
    ResourceType type =
        new ResourceType(
            group,
            List.of(version),
            plural,
            kind.toLowerCase(),
            kind,
            namespaced,
            shortNames,
            CATEGORY_ALL.contains(group + "/" + plural) ? List.of("all") : List.of(),
            hasStatus,
            Map.of(),
            Map.of(),
            Map.of());
    byKey.put(type.key(), type);
  }

  private void listedOnly(
      String group, String plural, String kind, boolean namespaced, List<String> shortNames) {
    builtin(group, "v1", plural, kind, namespaced, !plural.equals("endpoints"), shortNames);
    listedOnly.add(group + "/" + plural);
  }

  /**
   * Whether the resource is served for lookups only (it lists empty and refuses writes): a kind of
   * kubectl's default prune allow-list that nothing runs here.
   */
  boolean isListedOnly(ResourceType type) {
    return listedOnly.contains(type.key());
  }

  /** The resource served at {@code /apis/group/version/plural}, if any. */
  Optional<ResourceType> find(String group, String version, String plural) {
    ResourceType type = byKey.get(group + "/" + plural);
    return type != null && type.versions().contains(version) ? Optional.of(type) : Optional.empty();
  }

  Optional<ResourceType> byKey(String key) {
    return Optional.ofNullable(byKey.get(key));
  }

  /** Every served resource, in a stable order (groups sorted, core first). */
  List<ResourceType> all() {
    List<ResourceType> list = new ArrayList<>(byKey.values());
    list.sort(Comparator.comparing(ResourceType::group).thenComparing(ResourceType::plural));
    return list;
  }

  /** Served group names in order; the core group ({@code ""}) is not among them. */
  List<String> groups() {
    return all().stream().map(ResourceType::group).filter(g -> !g.isEmpty()).distinct().toList();
  }

  /** Serves (or re-serves, after an update) the resource a CRD object defines. */
  ResourceType register(JsonNode crd) {
    ResourceType type = fromCrd(crd);
    byKey.put(type.key(), type);
    return type;
  }

  /** Stops serving the resource of a deleted CRD. */
  void unregister(JsonNode crd) {
    JsonNode spec = crd.path("spec");
    byKey.remove(spec.path("group").asText() + "/" + spec.path("names").path("plural").asText());
  }

  static ResourceType fromCrd(JsonNode crd) {
    JsonNode spec = crd.path("spec");
    JsonNode names = spec.path("names");
    String group = spec.path("group").asText();
    String plural = names.path("plural").asText();
    if (group.isEmpty() || plural.isEmpty() || names.path("kind").asText().isEmpty()) {
      throw new IllegalArgumentException(
          "CustomResourceDefinition "
              + crd.path("metadata").path("name").asText()
              + " needs spec.group, spec.names.plural and spec.names.kind");
    }
    List<String> versions = new ArrayList<>();
    Map<String, JsonNode> columns = new LinkedHashMap<>();
    Map<String, JsonNode> schemas = new LinkedHashMap<>();
    Map<String, Set<String>> selectable = new LinkedHashMap<>();
    boolean hasStatus = false;
    for (JsonNode v : spec.path("versions")) {
      if (!v.path("served").asBoolean(true)) {
        continue;
      }
      String name = v.path("name").asText();
      // the storage version is the one clients should prefer, so it goes first
      if (v.path("storage").asBoolean(false)) {
        versions.add(0, name);
      } else {
        versions.add(name);
      }
      if (v.has("additionalPrinterColumns")) {
        columns.put(name, v.get("additionalPrinterColumns"));
      }
      schemas.put(name, v.path("schema").path("openAPIV3Schema"));
      Set<String> labels = new LinkedHashSet<>();
      // a selectable field's label is its JSON path without the leading dot, as kube-apiserver
      // names it
      v.path("selectableFields").forEach(f -> labels.add(f.path("jsonPath").asText().substring(1)));
      selectable.put(name, Set.copyOf(labels));
      hasStatus |= v.path("subresources").has("status");
    }
    if (versions.isEmpty()) {
      throw new IllegalArgumentException(
          "CustomResourceDefinition " + plural + "." + group + " serves no version");
    }
    return new ResourceType(
        group,
        List.copyOf(versions),
        plural,
        names.path("singular").asText(names.path("kind").asText().toLowerCase()),
        names.path("kind").asText(),
        !"Cluster".equals(spec.path("scope").asText()),
        strings(names.path("shortNames")),
        strings(names.path("categories")),
        hasStatus,
        Map.copyOf(columns),
        Map.copyOf(schemas),
        Map.copyOf(selectable));
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return List.copyOf(out);
  }
}
