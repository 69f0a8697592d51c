package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Get, list, create, update, patch and delete of one resource, with the semantics of a real API
 * server: optimistic concurrency on resourceVersion, the status subresource split, generation,
 * finalizers, dry runs, schema/CEL admission for custom resources and Table answers.
 */
final class ResourceHandler {

  /** Names drawn for one create with generateName before a 409 (as kube-apiserver: 1 + 7). */
  private static final int GENERATED_NAME_ATTEMPTS = 8;

  private final ObjectStore store;
  private final ObjectMapper json;
  private final ObjectMapper yaml;
  private final ObjectRules rules;
  private final SchemaValidator validator;
  private final CelRules cel;
  private final TableRenderer tables;
  private final Deletions deletions;
  private final FieldValidation fields;
  private final FieldOwnership ownership;
  private final SerializedObjects texts;
  private final ListReads lists;
  private final CreateFinalizers createFinalizers;
  private final HeapRoom room;

  /**
   * @param texts the text of stored objects, shared with the watches
   * @param createFinalizers the finalizers new objects get from the server
   * @param room whether the heap takes a new object
   */
  ResourceHandler(
      ObjectStore store,
      ObjectMapper json,
      ObjectMapper yaml,
      ObjectRules rules,
      SchemaValidator validator,
      CelRules cel,
      TableRenderer tables,
      SerializedObjects texts,
      CreateFinalizers createFinalizers,
      HeapRoom room) {
    this.room = room;
    this.texts = texts;
    this.createFinalizers = createFinalizers;
    this.store = store;
    this.json = json;
    this.yaml = yaml;
    this.rules = rules;
    this.validator = validator;
    this.cel = cel;
    this.tables = tables;
    this.deletions = new Deletions(store, json, rules);
    this.lists = new ListReads(store, json, tables);
    this.fields = new FieldValidation(json, yaml);
    this.ownership = new FieldOwnership(rules, yaml);
  }

  /** Deletes one object now, or marks it for deletion while finalizers remain. */
  ObjectNode delete(ResourceType type, String ns, String name, DeleteOptions options) {
    return deletions.delete(type, ns, name, options);
  }

  ApiResponse handle(ApiRequest req, RequestPath p, ResourceType type) {
    if (type.namespaced() && p.namespace() == null && p.name() != null) {
      throw ApiException.badRequest("a namespace is needed to address a " + type.kind());
    }
    if (p.subresource() != null && !(p.subresource().equals("status") && type.hasStatus())) {
      throw new ApiException(404, "NotFound", "the server could not find the requested resource");
    }
    boolean status = p.subresource() != null;
    String ns = type.namespaced() ? p.namespace() : "";
    switch (req.method()) {
      case "POST" -> req.requireKnownDryRun("CreateOptions");
      case "PUT" -> req.requireKnownDryRun("UpdateOptions");
      case "PATCH" -> req.requireKnownDryRun("PatchOptions");
      default -> {} // DELETE's options, query and body, are read with DeleteOptions
    }
    return switch (req.method()) {
      case "GET" -> p.name() == null ? lists.list(req, p, type) : get(req, p, type, ns);
      case "POST" -> {
        if (p.name() != null) {
          throw new ApiException(405, "MethodNotAllowed", "POST is only allowed on collections");
        }
        ObjectNode body = parse(req);
        List<String> warnings = fields.decoded(req, type, p.version());
        yield warned(answer(201, req, type, p.version(), create(req, type, ns, body)), warnings);
      }
      case "PUT" -> {
        List<String> warnings = fields.decoded(req, type, p.version());
        yield warned(
            answer(200, req, type, p.version(), update(req, type, ns, p.name(), status)), warnings);
      }
      case "PATCH" -> patch(req, p, type, ns, status);
      case "DELETE" ->
          p.name() == null
              ? respond(200, deletions.deleteCollection(req, p, type))
              : answer(
                  200,
                  req,
                  type,
                  p.version(),
                  delete(type, ns, p.name(), DeleteOptions.of(req, json)));
      default ->
          throw new ApiException(405, "MethodNotAllowed", req.method() + " is not supported");
    };
  }

  private ApiResponse get(ApiRequest req, RequestPath p, ResourceType type, String ns) {
    ListPage.checkResourceVersion(req.param("resourceVersion"));
    ObjectNode object = store.get(type.storageKey(), ns, p.name());
    if (object == null) {
      throw ApiException.notFound(type, p.name());
    }
    if (TableRenderer.wantsTable(req.accept())) {
      return respond(
          200,
          tables.table(
              type,
              p.version(),
              List.of(ServedObjects.view(type, p.version(), object)),
              req.param("includeObject"),
              store.resourceVersion()));
    }
    return answer(200, req, type, p.version(), object);
  }

  private ObjectNode create(ApiRequest req, ResourceType type, String ns, ObjectNode body) {
    String kind = body.path("kind").asText("");
    if (!kind.isEmpty() && !kind.equals(type.kind())) {
      throw ApiException.badRequest("the body holds a " + kind + ", not a " + type.kind());
    }
    requireServedVersion(type, body);
    requireNamespace(type, ns);
    requireReadableMetadata(type, body);
    boolean generated = body.path("metadata").path("name").asText("").isEmpty();
    ObjectNode object = rules.prepareCreate(type, ns, body);
    admit(type, object, null);
    requireRoomUnlessDryRun(req, type);
    // A generated name that is taken is drawn again (kube-apiserver does the same since 1.32):
    // five random characters collide once in a few thousand creates in a namespace of 20,000.
    ownership.recordUpdate(req, type, null, object, false);
    addCreateFinalizer(type, object);
    for (int attempt = 1; ; attempt++) {
      String name = object.path("metadata").path("name").asText();
      try {
        return store.write(
            type.storageKey(),
            ns,
            name,
            req.dryRun(),
            ServedObjects.mutation(
                type,
                current -> {
                  if (current != null) {
                    throw ApiException.alreadyExists(type, name);
                  }
                  return new ObjectStore.Put(object);
                }));
      } catch (ApiException e) {
        if (!generated || attempt == GENERATED_NAME_ATTEMPTS || e.code() != 409) {
          throw e;
        }
        rules.renameGenerated(object);
        admit(type, object, null);
      }
    }
  }

  private ObjectNode update(
      ApiRequest req, ResourceType type, String ns, String name, boolean status) {
    ObjectNode body = parse(req);
    requireServedVersion(type, body);
    ObjectRules.sameNameAndNamespace(type, body, name, ns);
    return store.write(
        type.storageKey(),
        ns,
        name,
        req.dryRun(),
        ServedObjects.mutation(
            type,
            current -> {
              if (current == null) {
                throw ApiException.notFound(type, name);
              }
              return change(req, type, current, body, status);
            }));
  }

  private ApiResponse patch(
      ApiRequest req, RequestPath p, ResourceType type, String ns, boolean status) {
    boolean apply = Patches.isApply(req.contentType());
    String manager = req.param("fieldManager");
    if (apply && (manager == null || manager.isEmpty())) {
      throw new ApiException(
          422,
          "Invalid",
          "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for"
              + " apply patch",
          "PatchOptions",
          "",
          List.of(
              new ApiException.Cause(
                  "fieldManager",
                  "Required value: is required for apply patch",
                  "FieldValueRequired")));
    }
    String[] created = {null};
    List<String> warnings =
        new ArrayList<>(apply ? fields.applied(req, type, p.version()) : List.of());
    ObjectNode result =
        store.write(
            type.storageKey(),
            ns,
            p.name(),
            req.dryRun(),
            ServedObjects.mutation(
                type,
                current -> {
                  if (current == null) {
                    if (!apply || status) {
                      throw ApiException.notFound(type, p.name());
                    }
                    // server-side apply creates what does not exist yet
                    requireNamespace(type, ns);
                    requireRoomUnlessDryRun(req, type);
                    ObjectNode applied = ownership.apply(req, type, null, false);
                    requireReadableMetadata(type, applied);
                    ObjectRules.sameNameAndNamespace(type, applied, p.name(), ns);
                    applied.withObjectProperty("metadata").put("name", p.name());
                    ObjectNode object = rules.prepareCreate(type, ns, applied);
                    admit(type, object, null);
                    addCreateFinalizer(type, object);
                    created[0] = p.name();
                    return new ObjectStore.Put(object);
                  }
                  ObjectNode candidate =
                      apply
                          ? ownership.apply(req, type, current, status)
                          : Patches.apply(
                              current, req.contentType(), req.body(), type.isCustom(), json);
                  ObjectRules.sameNameAndNamespace(type, candidate, p.name(), ns);
                  if (!apply) {
                    warnings.addAll(fields.patched(req, type, p.version(), candidate));
                  }
                  return change(req, type, current, candidate, status);
                }));
    return warned(answer(created[0] != null ? 201 : 200, req, type, p.version(), result), warnings);
  }

  /** A new object is refused while the heap is full; a dry run stores nothing and passes. */
  private void requireRoomUnlessDryRun(ApiRequest req, ResourceType type) {
    if (!req.dryRun()) {
      room.requireRoomFor(type.kind());
    }
  }

  private void addCreateFinalizer(ResourceType type, ObjectNode object) {
    createFinalizers
        .forNew(type)
        .ifPresent(f -> ownership.addFinalizer(type, object, f, CreateFinalizers.MANAGER));
  }

  /** The change an update or patch makes, given the stored object and the requested one. */
  private ObjectStore.Change change(
      ApiRequest req, ResourceType type, ObjectNode current, ObjectNode candidate, boolean status) {
    requireReadableMetadata(type, candidate);
    String expected = candidate.path("metadata").path("resourceVersion").asText("");
    String name = current.path("metadata").path("name").asText();
    if (!expected.isEmpty()
        && !expected.equals(current.path("metadata").path("resourceVersion").asText())) {
      throw ApiException.conflict(type, name);
    }
    Preconditions.requireUid(type, current, candidate.path("metadata").path("uid").asText(""));
    ObjectNode result = rules.prepareUpdate(type, current, candidate, status);
    result
        .withObjectProperty("metadata")
        .put("resourceVersion", current.path("metadata").path("resourceVersion").asText());
    admit(type, result, current);
    if (!status) {
      ObjectRules.touchGeneration(type, current, result);
    }
    if (!Patches.isApply(req.contentType()) || !req.method().equals("PATCH")) {
      ownership.recordUpdate(req, type, current, result, status);
    } else if (status) {
      FieldOwnership.copyManagedFields(candidate, result);
    }
    if (ObjectRules.sameContent(current, result)
        && current
            .path("metadata")
            .path("managedFields")
            .equals(result.path("metadata").path("managedFields"))) {
      return new ObjectStore.Keep(current);
    }
    if (result.path("metadata").has("deletionTimestamp") && !ObjectRules.hasFinalizers(result)) {
      return new ObjectStore.Remove(result);
    }
    return new ObjectStore.Put(result);
  }

  /**
   * Schema and CEL admission of custom resources, the real server's checks of Events; CRDs
   * themselves are checked to be servable.
   */
  private void admit(ResourceType type, ObjectNode object, ObjectNode old) {
    String name = object.path("metadata").path("name").asText();
    if (type.isCustom()) {
      String version = type.preferredVersion();
      String ns = object.path("metadata").path("namespace").asText("");
      List<ApiException.Cause> causes =
          validator.validate(
              type.schemas().get(version),
              object,
              old,
              CommitGuard.metadataCauses(type.storageKey(), ns, name, object));
      if (!causes.isEmpty()) {
        throw ApiException.invalid(type, name, causes);
      }
    } else if (EventVersions.isEvent(type)) {
      List<ApiException.Cause> causes =
          EventValidation.check(
              ServedObjects.stored(type, object),
              old == null ? null : ServedObjects.stored(type, old),
              EventVersions.isEventsV1(type));
      if (!causes.isEmpty()) {
        throw ApiException.invalid(type, name, causes);
      }
    } else if (type.group().equals(ResourceRegistry.CRD_GROUP)) {
      try {
        ResourceType defined = ResourceRegistry.fromCrd(object);
        defined.schemas().values().forEach(cel::compileAll);
        rules.markEstablished(object);
      } catch (IllegalArgumentException e) {
        throw ApiException.invalid(
            type,
            name,
            List.of(new ApiException.Cause("spec", e.getMessage(), "FieldValueInvalid")));
      }
    }
  }

  /**
   * Metadata of a type no typed reader reads is refused as sent, before the server rewrites parts
   * of it (its managedFields, its name); the commit checks the same again ({@link CommitGuard}).
   */
  private static void requireReadableMetadata(ResourceType type, ObjectNode object) {
    List<ApiException.Cause> causes = new ArrayList<>();
    MetadataShapes.check(object.get("metadata"), causes);
    if (!causes.isEmpty()) {
      throw ApiException.invalid(type, object.path("metadata").path("name").asText(""), causes);
    }
  }

  /**
   * A body's apiVersion, when it has one, must be a version this resource serves: a real server
   * cannot decode {@code batch.octomy.io/v9} into a BatchJob and answers 400; stored, it would
   * claim a version no client can ask for.
   */
  private static void requireServedVersion(ResourceType type, ObjectNode body) {
    String apiVersion = body.path("apiVersion").asText("");
    if (!apiVersion.isEmpty()
        && type.versions().stream().map(type::apiVersion).noneMatch(apiVersion::equals)) {
      throw ApiException.badRequest(
          "the API version in the data ("
              + apiVersion
              + ") does not match the expected API version ("
              + type.apiVersion(type.preferredVersion())
              + "); write apiVersion: "
              + type.apiVersion(type.preferredVersion()));
    }
  }

  private static boolean isNamespaces(ResourceType type) {
    return type.plural().equals("namespaces") && type.group().isEmpty();
  }

  /** A namespaced object is created only in a namespace that exists, as on a real server. */
  private void requireNamespace(ResourceType type, String ns) {
    if (type.namespaced() && store.get("/namespaces", "", ns) == null) {
      throw new ApiException(
          404, "NotFound", "namespaces \"" + ns + "\" not found", "namespaces", ns, List.of());
    }
  }

  private ObjectNode parse(ApiRequest req) {
    if (ProtobufBodies.isProtobuf(req.contentType())) {
      return ProtobufBodies.decode(req.body());
    }
    String mediaType = req.contentType().split(";")[0].trim();
    if (!mediaType.equals("application/json") && !mediaType.equals("application/yaml")) {
      throw new ApiException(
          415,
          "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types include:"
              + " application/json, application/yaml, application/vnd.kubernetes.protobuf");
    }
    try {
      ObjectMapper mapper = mediaType.equals("application/yaml") ? yaml : json;
      if (mapper == yaml) {
        refuseAliases(req.body());
      }
      JsonNode node = mapper.readTree(req.body());
      if (node == null || !node.isObject()) {
        throw ApiException.badRequest("the request body must be an object");
      }
      return (ObjectNode) node;
    } catch (IOException e) {
      throw ApiException.badRequest("the request body is not valid JSON: " + e.getMessage());
    }
  }

  /**
   * Refuses a YAML body with an alias ({@code *name}): the YAML reader here would store the alias's
   * name as text where a real server stores the anchored value, so it is refused, never misstored.
   */
  private void refuseAliases(byte[] body) throws IOException {
    try (JsonParser parser = yaml.getFactory().createParser(body)) {
      while (parser.nextToken() != null) {
        if (parser instanceof YAMLParser y && y.isCurrentAlias()) {
          throw ApiException.badRequest(
              "the request body uses a YAML alias (*"
                  + parser.getText()
                  + "), which this server does not expand: write the value out in full, or send"
                  + " JSON (kubectl apply and create send JSON)");
        }
      }
    }
  }

  private static ApiResponse warned(ApiResponse response, List<String> warnings) {
    for (String warning : warnings) {
      response = response.warn(warning);
    }
    return response;
  }

  /**
   * One object as {@code type} serves it at {@code version}; the text of a stored object served as
   * stored is the one its watch events carry.
   */
  private ApiResponse answer(
      int code, ApiRequest req, ResourceType type, String version, ObjectNode stored) {
    ObjectNode served = ServedObjects.view(type, version, stored);
    if (stored == null || served != stored || req.dryRun()) {
      return respond(code, served);
    }
    return new ApiResponse(
        code, "application/json", texts.text(stored).getBytes(StandardCharsets.UTF_8));
  }

  private ApiResponse respond(int code, JsonNode body) {
    try {
      return new ApiResponse(code, "application/json", json.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
