package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * The server-owned parts of an object write, as a real API server applies them: metadata set by the
 * server (uid, creationTimestamp, generation), the split between the main resource and its {@code
 * /status} subresource, and when {@code metadata.generation} moves.
 */
final class ObjectRules {

  private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
  private static final List<String> SERVER_METADATA =
      List.of(
          "uid",
          "creationTimestamp",
          "deletionTimestamp",
          "deletionGracePeriodSeconds",
          "generation");

  /**
   * Metadata a real server leaves out when empty: ObjectMeta's {@code omitempty} collections, so
   * {@code annotations: {}} from a patch, or the labels left after the last is removed, are not
   * kept (they would show as drift in {@code kubectl diff}, and their write as a change).
   */
  private static final List<String> OMITTED_WHEN_EMPTY =
      List.of("labels", "annotations", "finalizers", "ownerReferences");

  private final Clock clock;
  private final Random random;

  /**
   * Generated names need to differ, not to be secret (kube-apiserver draws them from math/rand):
   * {@link Random} is shared by every request thread without the lock and the entropy reads of
   * {@code SecureRandom}, which cost about 3 % of request threads' time in a profile of many
   * creates.
   */
  ObjectRules(Clock clock) {
    this(clock, new Random());
  }

  /** With the source of generated names given (tests give one that repeats). */
  ObjectRules(Clock clock, Random random) {
    this.clock = clock;
    this.random = random;
  }

  String now() {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * Gives an object created with {@code generateName} another random name (its first one is taken),
   * as kube-apiserver does before it answers 409.
   */
  void renameGenerated(ObjectNode object) {
    generateName(object.withObjectProperty("metadata"));
  }

  private String generateName(ObjectNode meta) {
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      suffix.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
    }
    String name = meta.get("generateName").asText() + suffix;
    meta.put("name", name);
    return name;
  }

  /**
   * Prepares a new object: name (or generateName), namespace, kind and the server-owned metadata.
   * For a resource with a status subresource the status is dropped, as on a real server.
   */
  ObjectNode prepareCreate(ResourceType type, String namespace, ObjectNode object) {
    ObjectNode meta = object.withObjectProperty("metadata");
    String name = meta.path("name").asText("");
    if (name.isEmpty() && !meta.path("generateName").asText("").isEmpty()) {
      name = generateName(meta);
    }
    if (name.isEmpty()) {
      throw ApiException.invalid(
          type,
          "",
          List.of(
              new ApiException.Cause(
                  "metadata.name",
                  "Required value: name or generateName is required",
                  "FieldValueRequired")));
    }
    // the name's format is checked with everything else a commit must satisfy (CommitGuard)
    setNamespace(type, namespace, meta);
    dropEmptyCollections(meta);
    for (String field : SERVER_METADATA) {
      meta.remove(field);
    }
    meta.remove("resourceVersion");
    meta.remove("selfLink");
    meta.put("uid", UUID.randomUUID().toString());
    meta.put("creationTimestamp", now());
    if (tracksGeneration(type)) {
      meta.put("generation", 1);
    }
    object.put("apiVersion", type.apiVersion(type.preferredVersion())).put("kind", type.kind());
    if (type.hasStatus() && type.isCustom()) {
      object.remove("status");
    }
    if (isNamespace(type)) {
      object.withObjectProperty("status").put("phase", "Active");
      if (!object.path("spec").has("finalizers")) {
        object.withObjectProperty("spec").putArray("finalizers").add("kubernetes");
      }
      labelNamespace(meta);
    }
    if (type.group().isEmpty()
        && type.plural().equals("secrets")
        && object.path("type").asText("").isEmpty()) {
      // the real server's default for a Secret without a type
      object.put("type", "Opaque");
    }
    return object;
  }

  /**
   * Whether {@code metadata.generation} counts changes of the desired state, as on a real server:
   * for custom resources, CustomResourceDefinitions and Pods, not for ConfigMaps, Namespaces,
   * Events and the other built-in kinds served here.
   */
  private static boolean tracksGeneration(ResourceType type) {
    return type.isCustom()
        || type.group().equals(ResourceRegistry.CRD_GROUP)
        || (type.group().isEmpty() && type.plural().equals("pods"));
  }

  private static boolean isNamespace(ResourceType type) {
    return type.group().isEmpty() && type.plural().equals("namespaces");
  }

  /**
   * A namespace carries its own name as a label, whatever a write says, so that a selector can pick
   * namespaces by name (a real server has done this since 1.22).
   */
  private static void labelNamespace(ObjectNode meta) {
    meta.withObjectProperty("labels")
        .put("kubernetes.io/metadata.name", meta.path("name").asText());
  }

  private static void dropEmptyCollections(ObjectNode meta) {
    for (String field : OMITTED_WHEN_EMPTY) {
      JsonNode value = meta.get(field);
      if (value != null && (value.isNull() || (value.isContainerNode() && value.isEmpty()))) {
        meta.remove(field);
      }
    }
  }

  private static void setNamespace(ResourceType type, String namespace, ObjectNode meta) {
    if (!type.namespaced()) {
      meta.remove("namespace");
      return;
    }
    String given = meta.path("namespace").asText("");
    if (!given.isEmpty() && !given.equals(namespace)) {
      throw ApiException.badRequest(
          "the namespace of the provided object does not match the namespace sent on "
              + "the request");
    }
    meta.put("namespace", namespace);
  }

  /**
   * The object after an update of the main resource ({@code status == false}) or of its status. A
   * status write keeps everything but the status; a main write keeps the stored status (when the
   * resource has a status subresource) and the server-owned metadata; generation goes up by one
   * when anything outside metadata and status changed.
   */
  ObjectNode prepareUpdate(
      ResourceType type, ObjectNode current, ObjectNode candidate, boolean status) {
    ObjectNode result;
    if (status) {
      result = current.deepCopy();
      JsonNode newStatus = candidate.get("status");
      if (newStatus == null || newStatus.isNull()) {
        result.remove("status");
      } else {
        result.set("status", newStatus);
      }
      return result;
    }
    result = candidate.deepCopy();
    if (type.hasStatus()) {
      if (current.has("status")) {
        result.set("status", current.get("status").deepCopy());
      } else {
        result.remove("status");
      }
    }
    ObjectNode meta = result.withObjectProperty("metadata");
    JsonNode currentMeta = current.get("metadata");
    for (String field :
        List.of(
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation")) {
      if (currentMeta.has(field)) {
        meta.set(field, currentMeta.get(field));
      } else {
        meta.remove(field);
      }
    }
    meta.remove("selfLink");
    dropEmptyCollections(meta);
    if (isNamespace(type)) {
      labelNamespace(meta);
    }
    result
        .put("apiVersion", current.path("apiVersion").asText())
        .put("kind", current.path("kind").asText());
    return result;
  }

  /**
   * Bumps generation when the object changed outside metadata (and status, when that is a
   * subresource).
   */
  static void touchGeneration(ResourceType type, ObjectNode current, ObjectNode result) {
    if (tracksGeneration(type)
        && !withoutServerParts(type, current).equals(withoutServerParts(type, result))) {
      result
          .withObjectProperty("metadata")
          .put("generation", current.path("metadata").path("generation").asLong(1) + 1);
    }
  }

  private static ObjectNode withoutServerParts(ResourceType type, ObjectNode o) {
    ObjectNode copy = o.deepCopy();
    copy.remove("metadata");
    if (type.hasStatus()) {
      copy.remove("status");
    }
    return copy;
  }

  /**
   * Whether two versions of an object are the same apart from resourceVersion and managedFields.
   */
  static boolean sameContent(ObjectNode a, ObjectNode b) {
    return comparable(a).equals(comparable(b));
  }

  private static ObjectNode comparable(ObjectNode o) {
    ObjectNode copy = o.deepCopy();
    ObjectNode meta = copy.withObjectProperty("metadata");
    meta.remove("resourceVersion");
    meta.remove("managedFields");
    return copy;
  }

  /** Whether the object waits for finalizers before it can go. */
  static boolean hasFinalizers(JsonNode object) {
    JsonNode f = object.path("metadata").path("finalizers");
    return f.isArray() && f.size() > 0;
  }

  /** A copy marked for deletion (kept until its finalizers are removed). */
  ObjectNode markDeleted(ObjectNode current) {
    ObjectNode result = current.deepCopy();
    result
        .withObjectProperty("metadata")
        .put("deletionTimestamp", now())
        .put("deletionGracePeriodSeconds", 0);
    return result;
  }

  /**
   * A CRD is usable as soon as it is stored here; clients that wait for Established see it at once.
   */
  void markEstablished(ObjectNode crd) {
    ObjectNode status = crd.withObjectProperty("status");
    status.set("acceptedNames", crd.path("spec").path("names").deepCopy());
    ArrayNode stored = status.putArray("storedVersions");
    stored.add(ResourceRegistry.fromCrd(crd).preferredVersion());
    if (status.path("conditions").size() > 0) {
      // already established: keep the transition times, so that re-installing at start is a no-op
      return;
    }
    ArrayNode conditions = status.putArray("conditions");
    String now = now();
    conditions
        .addObject()
        .put("type", "NamesAccepted")
        .put("status", "True")
        .put("reason", "NoConflicts")
        .put("message", "no conflicts found")
        .put("lastTransitionTime", now);
    conditions
        .addObject()
        .put("type", "Established")
        .put("status", "True")
        .put("reason", "InitialNamesAccepted")
        .put("message", "the initial names have been accepted")
        .put("lastTransitionTime", now);
  }

  /** A write may not move an object: the body's name and namespace must be the URL's. */
  static void sameNameAndNamespace(ResourceType type, ObjectNode body, String name, String ns) {
    JsonNode meta = body.path("metadata");
    String bodyName = meta.path("name").asText("");
    if (!bodyName.isEmpty() && !bodyName.equals(name)) {
      throw ApiException.badRequest(
          "the name of the object ("
              + bodyName
              + ") does not match the name on the URL ("
              + name
              + ")");
    }
    String bodyNs = meta.path("namespace").asText("");
    if (type.namespaced() && !bodyNs.isEmpty() && !bodyNs.equals(ns)) {
      throw ApiException.badRequest(
          "the namespace of the object ("
              + bodyNs
              + ") does not match the namespace on the request ("
              + ns
              + ")");
    }
  }
}
