package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.CompatibilityFlags;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.Map;

/**
 * The PATCH content types kubectl, fabric8 and JOSDK send.
 *
 * <p>JSON patch is applied by zjsonpatch with a real server's answers to a missing target: {@code
 * remove} of a key that is not there is refused (422), and {@code replace} of a missing key in an
 * object that is there adds it. A {@code copy}, {@code move} or {@code test} from a missing path is
 * refused (422) as RFC 6902 says; a real server refuses the {@code move} too but copies {@code
 * null} and passes a {@code test} for {@code null}. Merge patch follows RFC 7386. Strategic merge
 * patch is treated as a merge patch (for custom resources a real API server refuses it, and so does
 * this one). Server-side apply ({@code application/apply-patch+yaml}) is not applied here: it
 * merges with field ownership ({@link FieldOwnership}).
 */
final class Patches {

  static final String JSON_PATCH = "application/json-patch+json";
  static final String MERGE_PATCH = "application/merge-patch+json";
  static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
  static final String APPLY_PATCH = "application/apply-patch+yaml";

  /** A real server's limit on the operations of one JSON patch. */
  static final int MAX_JSON_PATCH_OPERATIONS = 10_000;

  /** A real server's limit on the bytes all {@code copy} operations of one JSON patch may add. */
  static final long MAX_JSON_PATCH_COPY_BYTES = 3L * 1024 * 1024;

  /** How a real server (evanphx/json-patch, as Kubernetes uses it) treats missing targets. */
  private static final EnumSet<CompatibilityFlags> AS_A_REAL_SERVER =
      EnumSet.of(
          CompatibilityFlags.FORBID_REMOVE_MISSING_OBJECT,
          CompatibilityFlags.ALLOW_MISSING_TARGET_OBJECT_ON_REPLACE);

  private Patches() {}

  /** Whether the content type is server-side apply (which may create the object). */
  static boolean isApply(String contentType) {
    return contentType != null && contentType.startsWith("application/apply-patch");
  }

  /**
   * Applies a patch body to a copy of {@code target}.
   *
   * @param custom whether the target is a custom resource (no strategic merge patch, as on a real
   *     server)
   * @throws ApiException 415 for an unknown content type, 400 for a malformed body, 422 for a JSON
   *     patch that cannot be applied, 413 for one with too many operations
   */
  static ObjectNode apply(
      ObjectNode target, String contentType, byte[] body, boolean custom, ObjectMapper json) {
    String type = contentType == null ? "" : contentType.split(";")[0].trim();
    if (custom && type.equals(STRATEGIC_MERGE_PATCH)) {
      throw unsupported(true);
    }
    try {
      switch (type) {
        case JSON_PATCH -> {
          return jsonPatch(target, json.readTree(body), json);
        }
        case MERGE_PATCH, STRATEGIC_MERGE_PATCH -> {
          return merge(target.deepCopy(), json.readTree(body));
        }
        default -> throw unsupported(custom);
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof ApiException api) {
        throw api;
      }
      throw ApiException.badRequest("cannot apply the patch: " + e.getMessage());
    }
  }

  private static ApiException unsupported(boolean custom) {
    return new ApiException(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
            + (custom
                ? String.join(", ", JSON_PATCH, MERGE_PATCH, APPLY_PATCH)
                : String.join(", ", JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)));
  }

  /**
   * RFC 6902 with a real server's bounds: at most 10,000 operations, and {@code copy} operations
   * that together add at most 3 MiB (so 30 doubling copies cannot grow an object to gigabytes). The
   * operations are applied in runs that end before each copy, whose source is measured first.
   */
  private static ObjectNode jsonPatch(ObjectNode target, JsonNode patch, ObjectMapper json)
      throws IOException {
    if (!patch.isArray()) {
      throw ApiException.badRequest(
          "json: cannot unmarshal "
              + patch.getNodeType()
              + " into a JSON patch (a list of operations)");
    }
    if (patch.size() > MAX_JSON_PATCH_OPERATIONS) {
      throw new ApiException(
          413,
          "RequestEntityTooLarge",
          "The allowed maximum operations in a JSON patch is "
              + MAX_JSON_PATCH_OPERATIONS
              + ", got "
              + patch.size());
    }
    JsonNode doc = target;
    ArrayNode run = json.createArrayNode();
    long copied = 0;
    try {
      for (JsonNode op : patch) {
        if ("copy".equals(op.path("op").asText())) {
          if (!run.isEmpty()) {
            doc = JsonPatch.apply(run, doc, AS_A_REAL_SERVER);
            run = json.createArrayNode();
          }
          JsonNode from = doc.at(JsonPointer.compile(op.path("from").asText()));
          copied += from.isMissingNode() ? 0 : json.writeValueAsBytes(from).length;
          if (copied > MAX_JSON_PATCH_COPY_BYTES) {
            throw new ApiException(
                422,
                "Invalid",
                "Unable to complete the copy, the accumulated size increase of copy is "
                    + copied
                    + ", exceeding the limit "
                    + MAX_JSON_PATCH_COPY_BYTES);
          }
        }
        run.add(op);
      }
      if (!run.isEmpty()) {
        doc = JsonPatch.apply(run, doc, AS_A_REAL_SERVER);
      }
    } catch (ApiException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ApiException(422, "Invalid", "the JSON patch cannot be applied: " + e.getMessage());
    }
    if (!doc.isObject()) {
      throw new ApiException(422, "Invalid", "the JSON patch does not leave an object");
    }
    return (ObjectNode) doc;
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
