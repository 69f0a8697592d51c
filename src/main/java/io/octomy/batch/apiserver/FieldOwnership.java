package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the handlers meet {@link ManagedFields}: who the manager of a request is, which fields a
 * write of the main resource or of its status does not own, the {@code 409 Conflict} of a refused
 * apply in the real server's words, and kubectl's move from client-side to server-side apply (its
 * {@code last-applied-configuration} annotation, which an apply by the manager {@code kubectl}
 * keeps up to date and whose fields it may take over without a conflict).
 */
final class FieldOwnership {

  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  /** The manager kubectl's server-side apply uses, whose apply keeps the annotation current. */
  private static final String KUBECTL = "kubectl";

  private final ObjectRules rules;
  private final ObjectMapper yaml;

  FieldOwnership(ObjectRules rules, ObjectMapper yaml) {
    this.rules = rules;
    this.yaml = yaml;
  }

  /**
   * Records an ordinary write in {@code next}'s {@code managedFields}.
   *
   * @param live the stored object, {@code null} on create
   */
  void recordUpdate(
      ApiRequest req, ResourceType type, ObjectNode live, ObjectNode next, boolean status) {
    if (tooDeep(next)) {
      return; // the commit guard refuses it
    }
    List<ManagedFields.Entry> sent = status ? List.of() : ManagedFields.of(next);
    List<ManagedFields.Entry> managed =
        !sent.isEmpty() || live == null ? sent : ManagedFields.of(live);
    ObjectNode written = withoutManagedFields(next);
    if (live == null && type.group().isEmpty() && type.plural().equals("namespaces")) {
      // set by the server after the field manager ran, as the real server's strategy does
      written.withObjectProperty("spec").remove("finalizers");
      if (written.get("spec").isEmpty()) {
        written.remove("spec");
      }
    }
    List<ManagedFields.Entry> entries =
        ManagedFields.update(
            managed,
            live == null ? JsonNodeFactory.instance.objectNode() : withoutManagedFields(live),
            written,
            FieldShapes.of(type, type.preferredVersion()),
            ignored(type, status),
            writer(next, type, status, updateManager(req)),
            rules.now());
    ManagedFields.write(next, entries);
  }

  /**
   * Puts {@code finalizer} on an object being created, after the request's own fields are recorded,
   * and records it as {@code manager}'s: the creator does not own it, so a later apply of theirs
   * without it leaves it on ({@link CreateFinalizers}). Nothing changes when it is listed already.
   */
  void addFinalizer(ResourceType type, ObjectNode created, String finalizer, String manager) {
    if (tooDeep(created)) {
      return; // the commit guard refuses it
    }
    for (JsonNode f : created.path("metadata").path("finalizers")) {
      if (f.asText().equals(finalizer)) {
        return;
      }
    }
    ObjectNode before = withoutManagedFields(created);
    created.withObjectProperty("metadata").withArrayProperty("finalizers").add(finalizer);
    List<ManagedFields.Entry> entries =
        ManagedFields.update(
            ManagedFields.of(created),
            before,
            withoutManagedFields(created),
            FieldShapes.of(type, type.preferredVersion()),
            ignored(type, false),
            writer(created, type, false, manager),
            rules.now());
    ManagedFields.write(created, entries);
  }

  /**
   * A server-side apply of the request's configuration onto {@code live} ({@code null} when the
   * object does not exist yet).
   *
   * @return the merged object, with its {@code managedFields}
   * @throws ApiException 400 for a body that is not a YAML or JSON object, 409 Conflict naming each
   *     field another manager owns
   */
  ObjectNode apply(ApiRequest req, ResourceType type, ObjectNode live, boolean status) {
    ObjectNode applied = withoutManagedFields(config(req));
    ObjectNode liveValue =
        live == null ? JsonNodeFactory.instance.objectNode() : withoutManagedFields(live);
    if (tooDeep(applied)) {
      // no ownership for what the commit guard refuses anyway (and whose depth would cost stack)
      return (ObjectNode) FieldValues.merge(liveValue, applied, FieldShape.DEDUCED);
    }
    FieldShape shape = FieldShapes.of(type, type.preferredVersion());
    ManagedFields.Writer writer =
        writer(live == null ? applied : live, type, status, req.param("fieldManager"));
    List<ManagedFields.Entry> managed = live == null ? List.of() : ManagedFields.of(live);
    boolean force = req.flag("force");
    ManagedFields.Applied outcome =
        ManagedFields.apply(
            managed, liveValue, applied, shape, ignored(type, status), writer, force, rules.now());
    if (outcome instanceof ManagedFields.Applied.Conflicted c && writer.manager().equals(KUBECTL)) {
      List<ManagedFields.Conflict> left = notFromLastApplied(c.conflicts(), liveValue, shape);
      if (left.isEmpty()) {
        outcome =
            ManagedFields.apply(
                managed,
                liveValue,
                applied,
                shape,
                ignored(type, status),
                writer,
                true,
                rules.now());
      } else {
        outcome = new ManagedFields.Applied.Conflicted(left);
      }
    }
    if (outcome instanceof ManagedFields.Applied.Conflicted c) {
      throw conflict(c.conflicts());
    }
    ManagedFields.Applied.Merged merged = (ManagedFields.Applied.Merged) outcome;
    ObjectNode result = (ObjectNode) merged.object();
    JsonNode annotations = result.path("metadata").path("annotations");
    if (writer.manager().equals(KUBECTL) && annotations.has(LAST_APPLIED)) {
      ((ObjectNode) annotations).put(LAST_APPLIED, lastApplied(applied));
    }
    ManagedFields.write(result, merged.managed());
    return result;
  }

  /** The conflicts on fields kubectl's client-side apply set to what the live object holds. */
  private static List<ManagedFields.Conflict> notFromLastApplied(
      List<ManagedFields.Conflict> conflicts, JsonNode live, FieldShape shape) {
    String text = live.path("metadata").path("annotations").path(LAST_APPLIED).asText("");
    if (text.isEmpty()) {
      return conflicts;
    }
    JsonNode lastApplied;
    try {
      lastApplied = FieldValues.readJson(text);
    } catch (IllegalArgumentException e) {
      return conflicts;
    }
    FieldSet allowed =
        FieldValues.fieldsOf(lastApplied, shape)
            .difference(FieldValues.compare(lastApplied, live, shape).modified());
    return conflicts.stream().filter(c -> !allowed.contains(c.path())).toList();
  }

  /** The applied configuration as the real server writes it into the annotation. */
  private static String lastApplied(ObjectNode applied) {
    ObjectNode copy = applied.deepCopy();
    JsonNode annotations = copy.path("metadata").path("annotations");
    if (annotations instanceof ObjectNode a) {
      a.remove(LAST_APPLIED);
      if (a.isEmpty()) {
        copy.withObjectProperty("metadata").remove("annotations");
      }
    }
    // encoded as the real server encodes an object: sorted keys, and a newline at the end
    return sorted(copy).toString() + "\n";
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      Map<String, JsonNode> keys = new TreeMap<>();
      node.properties().forEach(e -> keys.put(e.getKey(), sorted(e.getValue())));
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      keys.forEach(out::set);
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      node.forEach(item -> out.add(sorted(item)));
      return out;
    }
    return node;
  }

  /** 409 Conflict, worded as kube-apiserver words it. */
  static ApiException conflict(List<ManagedFields.Conflict> conflicts) {
    List<ApiException.Cause> causes = new ArrayList<>();
    for (ManagedFields.Conflict c : conflicts) {
      causes.add(
          new ApiException.Cause(
              FieldSet.display(c.path()),
              "conflict with " + printed(c.owner()),
              "FieldManagerConflict"));
    }
    String message;
    if (conflicts.size() == 1) {
      message =
          "Apply failed with 1 conflict: conflict with "
              + printed(conflicts.get(0).owner())
              + ": "
              + FieldSet.display(conflicts.get(0).path());
    } else {
      Map<String, List<ManagedFields.Conflict>> byOwner = new TreeMap<>();
      for (ManagedFields.Conflict c : conflicts) {
        byOwner.computeIfAbsent(sortKey(c.owner()), k -> new ArrayList<>()).add(c);
      }
      List<String> lines = new ArrayList<>();
      byOwner.forEach(
          (k, list) -> {
            lines.add("conflicts with " + printed(list.get(0).owner()) + ":");
            list.forEach(c -> lines.add("- " + FieldSet.display(c.path())));
          });
      message = "Apply failed with " + conflicts.size() + " conflicts: " + String.join("\n", lines);
    }
    return new ApiException(409, "Conflict", message, null, null, causes);
  }

  /** The order the real server lists owners in: by its JSON encoding of the entry's identity. */
  private static String sortKey(ManagedFields.Entry owner) {
    return owner.manager() + '\0' + owner.operation() + '\0' + owner.apiVersion();
  }

  private static String printed(ManagedFields.Entry owner) {
    StringBuilder s = new StringBuilder("\"").append(owner.manager()).append('"');
    if (!owner.subresource().isEmpty()) {
      s.append(" with subresource \"").append(owner.subresource()).append('"');
    }
    if (owner.operation().equals(ManagedFields.UPDATE)) {
      s.append(" using ").append(owner.apiVersion());
      if (owner.time() != null) {
        s.append(" at ").append(owner.time());
      }
    }
    return s.toString();
  }

  /**
   * The manager of an ordinary write: {@code fieldManager}, else the User-Agent up to its first
   * '/', as on a real server.
   */
  private static String updateManager(ApiRequest req) {
    String manager = req.param("fieldManager");
    if (manager != null && !manager.isEmpty()) {
      return manager;
    }
    String agent = req.userAgent().split("/", 2)[0];
    return agent.isEmpty() ? "octomy-standalone" : agent;
  }

  /** The writer of a request; its apiVersion is the object's (the version it was sent in). */
  private static ManagedFields.Writer writer(
      JsonNode object, ResourceType type, boolean status, String manager) {
    String apiVersion = object.path("apiVersion").asText(type.apiVersion(type.preferredVersion()));
    return new ManagedFields.Writer(manager, apiVersion, status ? "status" : "");
  }

  private ObjectNode config(ApiRequest req) {
    try {
      JsonNode node = yaml.readTree(req.body());
      if (node instanceof ObjectNode object) {
        return object;
      }
      throw ApiException.badRequest("the apply configuration must be an object");
    } catch (IOException e) {
      throw ApiException.badRequest("cannot apply the patch: " + e.getMessage());
    }
  }

  /** After a status apply: the stored object keeps the apply's field owners. */
  static void copyManagedFields(ObjectNode from, ObjectNode to) {
    JsonNode managed = from.path("metadata").get("managedFields");
    ObjectNode meta = to.withObjectProperty("metadata");
    if (managed == null) {
      meta.remove("managedFields");
    } else {
      meta.set("managedFields", managed.deepCopy());
    }
  }

  /** A write of the main resource owns no status field; a status write owns no spec field. */
  private static FieldSet ignored(ResourceType type, boolean status) {
    if (!type.hasStatus()) {
      return FieldSet.EMPTY;
    }
    return FieldSet.of(List.of(List.of(status ? "f:spec" : "f:status")));
  }

  private static boolean tooDeep(JsonNode object) {
    return CommitGuard.depth(object, 0) > CommitGuard.MAX_DEPTH;
  }

  private static ObjectNode withoutManagedFields(ObjectNode object) {
    ObjectNode copy = object.deepCopy();
    if (copy.path("metadata") instanceof ObjectNode meta) {
      meta.remove("managedFields");
    }
    return copy;
  }
}
