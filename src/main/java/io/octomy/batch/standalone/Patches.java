package io.octomy.batch.standalone;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * The PATCH content types kubectl, fabric8 and JOSDK send.
 *
 * <p>JSON patch is applied exactly (zjsonpatch). Merge patch follows RFC 7386. Strategic merge
 * patch and server-side apply ({@code application/apply-patch+yaml}) are treated as merge patches:
 * for custom resources a real API server does the same for strategic merge, and for apply the
 * difference (list merging by key, field ownership) does not matter to our clients, which always
 * send whole lists.
 */
final class Patches {

  static final String JSON_PATCH = "application/json-patch+json";
  static final String MERGE_PATCH = "application/merge-patch+json";
  static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
  static final String APPLY_PATCH = "application/apply-patch+yaml";

  private Patches() {}

  /** Whether the content type is server-side apply (which may create the object). */
  static boolean isApply(String contentType) {
    return contentType != null && contentType.startsWith("application/apply-patch");
  }

  /**
   * Applies a patch body to a copy of {@code target}.
   *
   * @throws ApiException 415 for an unknown content type, 400 for a malformed body
   */
  static ObjectNode apply(
      ObjectNode target, String contentType, byte[] body, ObjectMapper json, ObjectMapper yaml) {
    String type = contentType == null ? "" : contentType.split(";")[0].trim();
    try {
      switch (type) {
        case JSON_PATCH -> {
          JsonNode result = JsonPatch.apply(json.readTree(body), target);
          if (!result.isObject()) {
            throw ApiException.badRequest("the JSON patch does not leave an object");
          }
          return (ObjectNode) result;
        }
        case MERGE_PATCH, STRATEGIC_MERGE_PATCH, "application/json" -> {
          return merge(target.deepCopy(), json.readTree(body));
        }
        case APPLY_PATCH, "application/apply-patch+json" -> {
          // apply bodies are YAML (JSON is valid YAML)
          return merge(target.deepCopy(), yaml.readTree(body));
        }
        default ->
            throw new ApiException(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: "
                    + String.join(
                        ", ", JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH));
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof ApiException api) {
        throw api;
      }
      throw ApiException.badRequest("cannot apply the patch: " + e.getMessage());
    }
  }

  /** RFC 7386: objects merge recursively, {@code null} deletes, anything else replaces. */
  static ObjectNode merge(ObjectNode target, JsonNode patch) {
    if (!patch.isObject()) {
      throw ApiException.badRequest("a merge patch must be a JSON object");
    }
    Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      JsonNode value = f.getValue();
      if (f.getKey().startsWith("$")) {
        // strategic-merge directives ($setElementOrder/..., $patch, $retainKeys): not fields
        continue;
      }
      if (value.isNull()) {
        target.remove(f.getKey());
      } else if (value.isObject()) {
        JsonNode existing = target.get(f.getKey());
        ObjectNode base =
            existing != null && existing.isObject() ? (ObjectNode) existing : target.objectNode();
        target.set(f.getKey(), merge(base, value));
      } else {
        target.set(f.getKey(), value.deepCopy());
      }
    }
    return target;
  }
}
