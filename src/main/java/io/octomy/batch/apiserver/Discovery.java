package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The legacy discovery documents ({@code /api}, {@code /api/v1}, {@code /apis}, {@code /apis/G},
 * {@code /apis/G/V}). kubectl resolves short names ({@code bj}), singular names and the namespaced
 * flag from these, and finds out that {@code /status} exists.
 *
 * <p>Aggregated discovery ({@code Accept: ...;as=APIGroupDiscoveryList}) is not implemented: the
 * answers carry {@code Content-Type: application/json}, from which kubectl (client-go) sees that
 * the server sent the legacy form and falls back to it.
 */
final class Discovery {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final List<String> ALL_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  /** A custom resource's verbs in the order the real server lists them. */
  private static final List<String> CUSTOM_RESOURCE_VERBS =
      List.of("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch");

  private final ResourceRegistry registry;
  private final List<DelegatedGroup> delegated = new CopyOnWriteArrayList<>();

  Discovery(ResourceRegistry registry) {
    this.registry = registry;
  }

  /** Lists a delegated group version in {@code /apis} and answers its discovery documents. */
  void delegate(DelegatedGroup group) {
    delegated.add(group);
  }

  /** {@code /api}. */
  ObjectNode coreVersions(String serverAddress) {
    ObjectNode doc = F.objectNode();
    doc.put("kind", "APIVersions");
    doc.putArray("versions").add("v1");
    doc.putArray("serverAddressByClientCIDRs")
        .addObject()
        .put("clientCIDR", "0.0.0.0/0")
        .put("serverAddress", serverAddress);
    return doc;
  }

  /** {@code /apis}. */
  ObjectNode groups() {
    ObjectNode doc = F.objectNode();
    doc.put("kind", "APIGroupList").put("apiVersion", "v1");
    ArrayNode groups = doc.putArray("groups");
    for (String g : registry.groups()) {
      group(g).ifPresent(groups::add);
    }
    for (DelegatedGroup g : delegated) {
      groups.add(delegatedGroup(g));
    }
    return doc;
  }

  private static ObjectNode delegatedGroup(DelegatedGroup g) {
    ObjectNode doc = F.objectNode();
    doc.put("kind", "APIGroup").put("apiVersion", "v1").put("name", g.group());
    String gv = g.group() + "/" + g.version();
    doc.putArray("versions").addObject().put("groupVersion", gv).put("version", g.version());
    doc.putObject("preferredVersion").put("groupVersion", gv).put("version", g.version());
    return doc;
  }

  /** {@code /apis/GROUP}, empty when the group is not served. */
  Optional<ObjectNode> group(String group) {
    for (DelegatedGroup g : delegated) {
      if (g.group().equals(group)) {
        return Optional.of(delegatedGroup(g));
      }
    }
    List<String> versions =
        registry.all().stream()
            .filter(t -> t.group().equals(group))
            .flatMap(t -> t.versions().stream())
            .distinct()
            .toList();
    if (versions.isEmpty()) {
      return Optional.empty();
    }
    // the preferred version is the first one any resource of the group prefers
    String preferred =
        registry.all().stream()
            .filter(t -> t.group().equals(group))
            .map(ResourceType::preferredVersion)
            .findFirst()
            .orElse(versions.get(0));
    ObjectNode doc = F.objectNode();
    doc.put("kind", "APIGroup").put("apiVersion", "v1").put("name", group);
    ArrayNode list = doc.putArray("versions");
    list.addObject().put("groupVersion", group + "/" + preferred).put("version", preferred);
    versions.stream()
        .filter(v -> !v.equals(preferred))
        .forEach(v -> list.addObject().put("groupVersion", group + "/" + v).put("version", v));
    doc.putObject("preferredVersion")
        .put("groupVersion", group + "/" + preferred)
        .put("version", preferred);
    return Optional.of(doc);
  }

  /** {@code /api/v1} or {@code /apis/GROUP/VERSION}, empty when nothing is served there. */
  Optional<ObjectNode> resources(String group, String version) {
    for (DelegatedGroup g : delegated) {
      if (g.group().equals(group) && g.version().equals(version)) {
        ObjectNode doc = F.objectNode();
        doc.put("kind", "APIResourceList")
            .put("apiVersion", "v1")
            .put("groupVersion", group + "/" + version);
        ArrayNode list = doc.putArray("resources");
        for (DelegatedGroup.Resource r : g.resources()) {
          ObjectNode entry = list.addObject();
          entry
              .put("name", r.name())
              .put("singularName", r.name().substring(0, r.name().length() - 1))
              .put("namespaced", r.namespaced())
              .put("kind", r.kind());
          ArrayNode verbs = entry.putArray("verbs");
          r.verbs().forEach(verbs::add);
        }
        return Optional.of(doc);
      }
    }
    List<ResourceType> types =
        registry.all().stream()
            .filter(t -> t.group().equals(group) && t.versions().contains(version))
            .toList();
    if (types.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode doc = F.objectNode();
    doc.put("kind", "APIResourceList")
        .put("apiVersion", "v1")
        .put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode list = doc.putArray("resources");
    for (ResourceType t : types) {
      ObjectNode r = list.addObject();
      r.put("name", t.plural())
          .put("singularName", t.singular())
          .put("namespaced", t.namespaced())
          .put("kind", t.kind());
      ArrayNode verbs = r.putArray("verbs");
      (t.isCustom() ? CUSTOM_RESOURCE_VERBS : ALL_VERBS)
          .stream()
              .filter(v -> !(v.equals("deletecollection") && t.plural().equals("namespaces")))
              .forEach(verbs::add);
      if (!t.shortNames().isEmpty()) {
        ArrayNode shorts = r.putArray("shortNames");
        t.shortNames().forEach(shorts::add);
      }
      if (!t.categories().isEmpty()) {
        ArrayNode categories = r.putArray("categories");
        t.categories().forEach(categories::add);
      }
      if (t.hasStatus()) {
        ObjectNode s = list.addObject();
        s.put("name", t.plural() + "/status")
            .put("singularName", "")
            .put("namespaced", t.namespaced())
            .put("kind", t.kind());
        s.putArray("verbs").add("get").add("patch").add("update");
      }
    }
    return Optional.of(doc);
  }

  /**
   * {@code /version}: the Kubernetes release whose API server this one is held to (the reference of
   * the conformance session, docs/conformance.md), with {@code +octomy} as build metadata. kubectl
   * 1.33 is within the supported skew; the Cloud SDK's kubectl dispatcher picks the same kubectl
   * for this server as for a cluster of that release.
   */
  static ObjectNode version() {
    ObjectNode doc = F.objectNode();
    doc.put("major", "1")
        .put("minor", "34")
        .put("gitVersion", "v1.34.4+octomy")
        .put("gitCommit", "octomy")
        .put("gitTreeState", "clean")
        .put("buildDate", "2025-01-01T00:00:00Z")
        .put("goVersion", "java17")
        .put("compiler", "javac")
        .put("platform", "linux/amd64");
    return doc;
  }
}
