package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Deletes as a real server does: at once, or marked while finalizers remain; a foreground or
 * orphaning delete left to the garbage collector with its finalizer; a namespace with its contents
 * and a CustomResourceDefinition with its objects; a collection by label and field selector.
 */
final class Deletions {

  private final ObjectStore store;
  private final ObjectMapper json;
  private final ObjectRules rules;

  Deletions(ObjectStore store, ObjectMapper json, ObjectRules rules) {
    this.store = store;
    this.json = json;
    this.rules = rules;
  }

  /** Deletes one object now, or marks it for deletion while finalizers remain. */
  ObjectNode delete(ResourceType type, String ns, String name, DeleteOptions options) {
    boolean dryRun = options.dryRun();
    if (isNamespaces(type) && Preconditions.PROTECTED_NAMESPACES.contains(name)) {
      throw new ApiException(
          403,
          "Forbidden",
          "namespaces \"" + name + "\" is forbidden: this namespace may not be deleted",
          "namespaces",
          name,
          List.of());
    }
    ObjectNode result =
        store.write(
            type.storageKey(),
            ns,
            name,
            dryRun,
            ServedObjects.mutation(
                type,
                current -> {
                  if (current == null) {
                    throw ApiException.notFound(type, name);
                  }
                  options.preconditions().check(type, current);
                  if (options.propagation() != DeleteOptions.Propagation.BACKGROUND) {
                    return leaveToCollector(current, options.propagation());
                  }
                  if (ObjectRules.hasFinalizers(current)) {
                    return current.path("metadata").has("deletionTimestamp")
                        ? new ObjectStore.Keep(current)
                        : new ObjectStore.Put(rules.markDeleted(current));
                  }
                  return new ObjectStore.Remove(current.deepCopy());
                }));
    if (!dryRun && isNamespaces(type)) {
      deleteContents(name);
    } else if (!dryRun && type.group().equals(ResourceRegistry.CRD_GROUP)) {
      ResourceType defined = ResourceRegistry.fromCrd(result);
      for (ObjectNode o : store.list(defined.key(), null).items()) {
        removeQuietly(defined.key(), o);
      }
    }
    return result;
  }

  /**
   * A foreground or orphaning delete, as the real server starts one: the object is marked deleted
   * and carries the finalizer that has the garbage collector finish the job (the other one of the
   * two, if any, goes).
   */
  private ObjectStore.Change leaveToCollector(
      ObjectNode current, DeleteOptions.Propagation propagation) {
    boolean orphan = propagation == DeleteOptions.Propagation.ORPHAN;
    String wanted = orphan ? GarbageCollector.ORPHAN : GarbageCollector.FOREGROUND;
    String other = orphan ? GarbageCollector.FOREGROUND : GarbageCollector.ORPHAN;
    ObjectNode marked =
        current.path("metadata").has("deletionTimestamp")
            ? current.deepCopy()
            : rules.markDeleted(current);
    ObjectNode meta = marked.withObjectProperty("metadata");
    ArrayNode finalizers = meta.arrayNode();
    for (JsonNode f : meta.path("finalizers")) {
      if (!f.asText().equals(other) && !f.asText().equals(wanted)) {
        finalizers.add(f);
      }
    }
    finalizers.add(wanted);
    meta.set("finalizers", finalizers);
    return marked.equals(current) ? new ObjectStore.Keep(current) : new ObjectStore.Put(marked);
  }

  /**
   * A deleted namespace takes its objects with it (at once; there is no Terminating phase here).
   */
  private void deleteContents(String namespace) {
    for (Map.Entry<String, ObjectNode> e : store.inNamespace(namespace)) {
      removeQuietly(e.getKey(), e.getValue());
    }
  }

  private void removeQuietly(String resource, ObjectNode o) {
    JsonNode meta = o.path("metadata");
    store.write(
        resource,
        meta.path("namespace").asText(""),
        meta.path("name").asText(),
        false,
        current ->
            current == null
                ? new ObjectStore.Keep(null)
                : new ObjectStore.Remove(current.deepCopy()));
  }

  /** Deletes every object of a collection the request's selectors match; the deleted, as a list. */
  ObjectNode deleteCollection(ApiRequest req, RequestPath p, ResourceType type) {
    if (isNamespaces(type)) {
      throw new ApiException(
          405,
          "MethodNotAllowed",
          "the server does not allow this method on the requested resource");
    }
    Predicate<JsonNode> filter =
        Selectors.labels(req.param("labelSelector"))
            .and(FieldSelectors.of(req.param("fieldSelector"), type, p.version()));
    ObjectNode list = json.createObjectNode();
    list.put("kind", type.kind() + "List").put("apiVersion", type.apiVersion(p.version()));
    ArrayNode items = list.putArray("items");
    // Each item is deleted with the request's options, its preconditions included, and the first
    // refusal ends the request, as the real server's DeleteCollection (one worker by default) does.
    DeleteOptions each = DeleteOptions.of(req, json);
    for (ObjectNode o :
        store.list(type.storageKey(), type.namespaced() ? p.namespace() : null).items()) {
      if (filter.test(o)) {
        JsonNode meta = o.path("metadata");
        try {
          items.add(
              ServedObjects.view(
                  type,
                  p.version(),
                  delete(
                      type, meta.path("namespace").asText(""), meta.path("name").asText(), each)));
        } catch (ApiException e) {
          if (e.code() != 404) {
            throw e;
          }
          // deleted meanwhile: nothing left to do
        }
      }
    }
    list.putObject("metadata").put("resourceVersion", Long.toString(store.resourceVersion()));
    return list;
  }

  private static boolean isNamespaces(ResourceType type) {
    return type.plural().equals("namespaces") && type.group().isEmpty();
  }
}
