package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.util.List;
import java.util.Map;

/**
 * The JSON types of every ObjectMeta field, as a Kubernetes client reads them: an object whose
 * metadata a typed reader cannot read (the controller's informers, the agent's, the plugin's) stops
 * that reader, so it is never stored. A real server refuses the same shapes, because it decodes
 * metadata into its typed ObjectMeta before anything else. Labels, annotations and finalizers are
 * checked with their syntax in {@link CommitGuard}; this class checks the rest.
 */
final class MetadataShapes {

  private static final List<String> STRINGS =
      List.of(
          "name",
          "generateName",
          "namespace",
          "uid",
          "resourceVersion",
          "selfLink",
          "creationTimestamp",
          "deletionTimestamp");
  private static final List<String> INTEGERS = List.of("generation", "deletionGracePeriodSeconds");
  private static final List<String> OWNER_STRINGS = List.of("apiVersion", "kind", "name", "uid");
  private static final List<String> OWNER_BOOLEANS = List.of("controller", "blockOwnerDeletion");
  private static final List<String> MANAGED_STRINGS =
      List.of("manager", "operation", "apiVersion", "time", "fieldsType", "subresource");
  private static final String OWNER_EXAMPLE =
      "write a list like [{apiVersion: batch.octomy.io/v1alpha1, kind: BatchJob, name: parent,"
          + " uid: <the owner's metadata.uid>}]";

  private MetadataShapes() {}

  /** Adds a cause for each metadata field whose JSON type a typed reader cannot read. */
  static void check(JsonNode meta, List<ApiException.Cause> causes) {
    if (meta == null || meta.isNull()) {
      return;
    }
    if (!meta.isObject()) {
      causes.add(typeCause("metadata", meta, "object", "write metadata as a mapping"));
      return;
    }
    for (String field : STRINGS) {
      JsonNode v = meta.get(field);
      if (v != null && !v.isNull() && !v.isTextual()) {
        causes.add(typeCause("metadata." + field, v, "string", "write it as a quoted string"));
      }
    }
    for (String field : INTEGERS) {
      JsonNode v = meta.get(field);
      if (v != null && !v.isNull() && !v.isIntegralNumber()) {
        causes.add(typeCause("metadata." + field, v, "integer", "write a whole number"));
      }
    }
    ownerReferences(meta.get("ownerReferences"), causes);
    managedFields(meta.get("managedFields"), causes);
  }

  private static void ownerReferences(JsonNode refs, List<ApiException.Cause> causes) {
    if (refs == null || refs.isNull()) {
      return;
    }
    String path = "metadata.ownerReferences";
    if (!refs.isArray()) {
      causes.add(typeCause(path, refs, "array", OWNER_EXAMPLE));
      return;
    }
    for (int i = 0; i < refs.size(); i++) {
      JsonNode ref = refs.get(i);
      String at = path + "[" + i + "]";
      if (!ref.isObject()) {
        causes.add(typeCause(at, ref, "object", OWNER_EXAMPLE));
        continue;
      }
      for (String field : OWNER_STRINGS) {
        JsonNode v = ref.get(field);
        if (v == null || v.isNull() || (v.isTextual() && v.asText().isEmpty())) {
          causes.add(
              new ApiException.Cause(
                  at + "." + field,
                  "Required value: an owner reference names its owner's apiVersion, kind, name"
                      + " and uid",
                  "FieldValueRequired"));
        } else if (!v.isTextual()) {
          causes.add(typeCause(at + "." + field, v, "string", "write it as a quoted string"));
        }
      }
      for (String field : OWNER_BOOLEANS) {
        JsonNode v = ref.get(field);
        if (v != null && !v.isNull() && !v.isBoolean()) {
          causes.add(typeCause(at + "." + field, v, "boolean", "write true or false"));
        }
      }
    }
  }

  /** The server writes managedFields; what a write sends must still be entries it can read. */
  private static void managedFields(JsonNode entries, List<ApiException.Cause> causes) {
    if (entries == null || entries.isNull()) {
      return;
    }
    String path = "metadata.managedFields";
    String hint = "leave managedFields out; the server keeps them";
    if (!entries.isArray()) {
      causes.add(typeCause(path, entries, "array", hint));
      return;
    }
    for (int i = 0; i < entries.size(); i++) {
      JsonNode entry = entries.get(i);
      String at = path + "[" + i + "]";
      if (!entry.isObject()) {
        causes.add(typeCause(at, entry, "object", hint));
        continue;
      }
      for (String field : MANAGED_STRINGS) {
        JsonNode v = entry.get(field);
        if (v != null && !v.isNull() && !v.isTextual()) {
          causes.add(typeCause(at + "." + field, v, "string", hint));
        }
      }
      JsonNode fields = entry.get("fieldsV1");
      if (fields != null && !fields.isNull() && !fields.isObject()) {
        causes.add(typeCause(at + ".fieldsV1", fields, "object", hint));
      }
    }
  }

  private static ApiException.Cause typeCause(
      String field, JsonNode value, String expected, String instead) {
    return new ApiException.Cause(
        field,
        "Invalid value: \"" + kind(value) + "\": must be of type " + expected + "; " + instead,
        "FieldValueTypeInvalid");
  }

  private static final Map<JsonNodeType, String> KINDS =
      Map.of(
          JsonNodeType.ARRAY, "array",
          JsonNodeType.OBJECT, "object",
          JsonNodeType.STRING, "string",
          JsonNodeType.BOOLEAN, "boolean");

  private static String kind(JsonNode v) {
    if (v.isNumber()) {
      return v.isIntegralNumber() ? "integer" : "number";
    }
    return KINDS.getOrDefault(v.getNodeType(), "null");
  }
}
