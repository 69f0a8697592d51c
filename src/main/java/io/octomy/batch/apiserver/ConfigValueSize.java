package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A ConfigMap's values ({@code data} and decoded {@code binaryData}) and a Secret's decoded {@code
 * data} fit in 1 MiB, as on a real server, which names the field it counts.
 */
final class ConfigValueSize {

  /** A real server's limit on the values of one ConfigMap or Secret ({@code MaxSecretSize}). */
  static final int MAX_BYTES = 1024 * 1024;

  private ConfigValueSize() {}

  /** The cause to refuse the object with, if it is a ConfigMap or Secret over the limit. */
  static Optional<ApiException.Cause> check(String resource, ObjectNode object) {
    boolean configMap = resource.equals("/configmaps");
    if (!configMap && !resource.equals("/secrets")) {
      return Optional.empty();
    }
    long total =
        configMap
            ? valueBytes(object.get("data"), false) + valueBytes(object.get("binaryData"), true)
            : valueBytes(object.get("data"), true);
    if (total <= MAX_BYTES) {
      return Optional.empty();
    }
    return Optional.of(
        new ApiException.Cause(
            configMap ? "" : "data",
            "Too long: may not be more than " + MAX_BYTES + " bytes",
            "FieldValueTooLong"));
  }

  /** The bytes of a map's string values, as base64-decoded bytes when {@code base64}. */
  private static long valueBytes(JsonNode values, boolean base64) {
    long total = 0;
    if (values != null) {
      for (JsonNode v : values) {
        String s = v.asText("");
        total +=
            base64
                ? s.length() / 4 * 3 - (s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0)
                : s.getBytes(StandardCharsets.UTF_8).length;
      }
    }
    return total;
  }
}
