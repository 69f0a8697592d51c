package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * {@code /openapi/v2} and {@code /openapi/v3}.
 *
 * <p><b>v2, for client-side validation.</b> kubectl (1.27+) validates a manifest on the client
 * unless the server's OpenAPI v3 document says its PATCH accepts {@code fieldValidation}; it then
 * reads {@code /openapi/v2} as protobuf. An empty protobuf message is a valid, empty OpenAPI v2
 * {@code Document}: kubectl finds no schema for the built-in kinds served here and skips
 * client-side checks, and the server's own checks ({@link FieldValidation}, then admission) answer
 * a bad manifest. Clients asking for JSON get an equally empty Swagger document.
 *
 * <p><b>v3, for {@code kubectl explain} and server-side field validation.</b> The root lists one
 * document per served group version of a custom resource; each holds the CRD's schema under {@code
 * components.schemas}, named and tagged ({@code x-kubernetes-group-version-kind}) as a real API
 * server publishes it, with {@code apiVersion}, {@code kind} and {@code metadata} added, GET
 * operations that name the kind, and on each object's path a PATCH operation whose parameters
 * include {@code fieldValidation}: that is how kubectl learns that the server validates fields
 * itself, so that {@code --validate=warn} asks for {@code Warn} rather than skipping validation.
 */
final class OpenApiDocs {

  /**
   * What kube-openapi answers protobuf with (the '@' of the requested type is not a valid MIME
   * token).
   */
  static final String PROTOBUF = "application/octet-stream";

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

  private OpenApiDocs() {}

  static ApiResponse v2(String accept) {
    if (accept != null && accept.contains("protobuf")) {
      return new ApiResponse(200, PROTOBUF, new byte[0]);
    }
    return ApiResponse.json(
        200,
        "{\"swagger\":\"2.0\",\"info\":{\"title\":\"octomy-batch standalone\",\"version\":\"v1\"},"
            + "\"paths\":{},\"definitions\":{}}");
  }

  /** {@code /openapi/v3}: where each group version's document is. */
  static JsonNode v3Root(ResourceRegistry registry) {
    ObjectNode paths = F.objectNode();
    for (ResourceType type : registry.all()) {
      if (!type.isCustom()) {
        continue;
      }
      for (String version : type.versions()) {
        String path = "apis/" + type.group() + "/" + version;
        if (!paths.has(path)) {
          String hash =
              hash(v3GroupVersion(registry, type.group(), version).orElseThrow().toString());
          paths.putObject(path).put("serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash);
        }
      }
    }
    ObjectNode root = F.objectNode();
    root.set("paths", paths);
    return root;
  }

  /**
   * {@code /openapi/v3/apis/GROUP/VERSION}: the schemas of that group version's custom resources.
   */
  static Optional<JsonNode> v3GroupVersion(
      ResourceRegistry registry, String group, String version) {
    ObjectNode schemas = F.objectNode();
    ObjectNode paths = F.objectNode();
    for (ResourceType type : registry.all()) {
      JsonNode schema = type.schemas().get(version);
      if (!type.isCustom() || !type.group().equals(group) || schema == null) {
        continue;
      }
      String name = schemaName(group, version, type.kind());
      schemas.set(name, published(schema, group, version, type.kind()));
      // kubectl explain finds a resource's kind through the GET operations of its paths.
      String base = "/apis/" + group + "/" + version;
      List<String> collections =
          type.namespaced()
              ? List.of(
                  base + "/" + type.plural(), base + "/namespaces/{namespace}/" + type.plural())
              : List.of(base + "/" + type.plural());
      for (String collection : collections) {
        paths.set(collection, getOperation(group, version, type.kind(), name));
        if (collection.contains("{namespace}") || !type.namespaced()) {
          ObjectNode object = getOperation(group, version, type.kind(), name);
          object.set("patch", patchOperation(group, version, type.kind(), name));
          paths.set(collection + "/{name}", object);
        }
      }
    }
    if (schemas.isEmpty()) {
      return Optional.empty();
    }
    schemas.set(OBJECT_META, objectMeta());
    ObjectNode doc = F.objectNode();
    doc.put("openapi", "3.0.0");
    doc.putObject("info").put("title", "octomy-batch standalone").put("version", version);
    doc.set("paths", paths);
    doc.putObject("components").set("schemas", schemas);
    return Optional.of(doc);
  }

  /**
   * The PATCH of one object, with the query parameters a real server lists for it. kubectl reads
   * its parameters to find out whether the server validates fields ({@code fieldValidation}).
   */
  private static ObjectNode patchOperation(
      String group, String version, String kind, String schemaName) {
    ObjectNode patch = F.objectNode();
    patch.put("description", "partially update the specified " + kind);
    ArrayNode parameters = patch.putArray("parameters");
    queryParameter(
        parameters,
        "dryRun",
        "When present, indicates that modifications should not be persisted. Valid values: All");
    queryParameter(
        parameters,
        "fieldManager",
        "fieldManager is a name associated with the actor or entity that is making these changes.");
    queryParameter(
        parameters,
        "fieldValidation",
        "fieldValidation instructs the server on how to handle objects in the request containing"
            + " unknown or duplicate fields. Valid values are: Ignore, Warn (the default) and"
            + " Strict.");
    parameters
        .addObject()
        .put("name", "force")
        .put("in", "query")
        .put(
            "description",
            "Force is going to \"force\" Apply requests: re-acquire conflicting fields owned by"
                + " other people.")
        .putObject("schema")
        .put("type", "boolean")
        .put("uniqueItems", true);
    ObjectNode content = patch.putObject("requestBody").putObject("content");
    for (String mediaType : List.of(Patches.JSON_PATCH, Patches.MERGE_PATCH, Patches.APPLY_PATCH)) {
      content.putObject(mediaType).putObject("schema").put("type", "object");
    }
    patch
        .putObject("responses")
        .putObject("200")
        .put("description", "OK")
        .putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", "#/components/schemas/" + schemaName);
    patch.put("x-kubernetes-action", "patch");
    patch
        .putObject("x-kubernetes-group-version-kind")
        .put("group", group)
        .put("kind", kind)
        .put("version", version);
    return patch;
  }

  private static void queryParameter(ArrayNode parameters, String name, String description) {
    parameters
        .addObject()
        .put("name", name)
        .put("in", "query")
        .put("description", description)
        .putObject("schema")
        .put("type", "string")
        .put("uniqueItems", true);
  }

  /** The GET of a collection or an object: kubectl explain finds the kind through it. */
  private static ObjectNode getOperation(
      String group, String version, String kind, String schemaName) {
    ObjectNode path = F.objectNode();
    ObjectNode get = path.putObject("get");
    get.putObject("x-kubernetes-group-version-kind")
        .put("group", group)
        .put("kind", kind)
        .put("version", version);
    get.putObject("responses")
        .putObject("200")
        .put("description", "OK")
        .putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", "#/components/schemas/" + schemaName);
    return path;
  }

  /**
   * {@code io.octomy.batch.v1alpha1.BatchJob} for group {@code batch.octomy.io}: the group
   * reversed, as Kubernetes names them.
   */
  static String schemaName(String group, String version, String kind) {
    List<String> labels = new ArrayList<>(List.of(group.split("\\.")));
    Collections.reverse(labels);
    return String.join(".", labels) + "." + version + "." + kind;
  }

  private static final String CONVENTIONS =
      "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md";

  private static ObjectNode published(
      JsonNode crdSchema, String group, String version, String kind) {
    ObjectNode s = crdSchema.deepCopy();
    ObjectNode original = s.has("properties") ? (ObjectNode) s.get("properties") : F.objectNode();
    ObjectNode properties = F.objectNode();
    // the descriptions of the real server, so that kubectl explain reads the same on both
    properties
        .putObject("apiVersion")
        .put(
            "description",
            "APIVersion defines the versioned schema of this representation of an object. Servers"
                + " should convert recognized schemas to the latest internal value, and may reject"
                + " unrecognized values. More info: "
                + CONVENTIONS
                + "#resources")
        .put("type", "string");
    properties
        .putObject("kind")
        .put(
            "description",
            "Kind is a string value representing the REST resource this object represents."
                + " Servers may infer this from the endpoint the client submits requests to."
                + " Cannot be updated. In CamelCase. More info: "
                + CONVENTIONS
                + "#types-kinds")
        .put("type", "string");
    ObjectNode meta = properties.putObject("metadata");
    meta.put("description", "Standard object's metadata. More info: " + CONVENTIONS + "#metadata");
    meta.putArray("allOf").addObject().put("$ref", "#/components/schemas/" + OBJECT_META);
    properties.setAll(original);
    s.set("properties", properties);
    ArrayNode gvk = s.putArray("x-kubernetes-group-version-kind");
    gvk.addObject().put("group", group).put("kind", kind).put("version", version);
    return s;
  }

  /** The part of ObjectMeta people set or read on our kinds. */
  private static ObjectNode objectMeta() {
    ObjectNode m = F.objectNode();
    m.put("type", "object");
    m.put("description", "ObjectMeta is metadata that all persisted resources must have.");
    ObjectNode p = m.putObject("properties");
    field(p, "name", "string", "Name must be unique within a namespace. Cannot be updated.");
    field(
        p,
        "namespace",
        "string",
        "Namespace defines the space within which each name must be unique.");
    p.set(
        "labels",
        stringMap(
            "Map of string keys and values that can be used to organize and categorize objects."));
    p.set(
        "annotations",
        stringMap("Annotations is an unstructured key value map stored with a resource."));
    field(
        p,
        "uid",
        "string",
        "UID is the unique in time and space value for this object. Set by the server.");
    field(
        p,
        "resourceVersion",
        "string",
        "An opaque value that represents the internal version of this object. Set by the server.");
    p.putObject("generation")
        .put("type", "integer")
        .put("format", "int64")
        .put(
            "description",
            "A sequence number representing a specific generation of the desired state. Set by the server.");
    p.putObject("creationTimestamp")
        .put("type", "string")
        .put("format", "date-time")
        .put("description", "The time this object was created. Set by the server.");
    return m;
  }

  private static void field(ObjectNode properties, String name, String type, String description) {
    properties.putObject(name).put("type", type).put("description", description);
  }

  private static ObjectNode stringMap(String description) {
    ObjectNode n = F.objectNode();
    n.put("type", "object").put("description", description);
    n.putObject("additionalProperties").put("type", "string");
    return n;
  }

  private static String hash(String content) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-512").digest(content.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().withUpperCase().formatHex(d, 0, 32);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
