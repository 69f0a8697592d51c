package io.octomy.batch.api.crd;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.vocabulary.Quantities;

/**
 * Every integer field's range is the range of the Java type that reads it: {@code -2147483648} to
 * {@code 2147483647} for an {@code int}, {@code ±}{@link Quantities#MAX} for a {@code long} (exact
 * as a double, which is how an API server compares a bound). Without it a write through the status
 * subresource stored {@code status.array.running: 2147568856}, which the controller's informer
 * could not read: it stopped the operator, and standalone exited. With it the server refuses the
 * write with 422 and the largest value it takes.
 */
final class WholeNumberBounds {

  private static final ObjectMapper READER = Serialization.jsonMapper();

  private WholeNumberBounds() {}

  /** Bounds every integer in {@code schema} by the type {@code kind}'s readers read it as. */
  static void bound(JsonNode schema, Class<?> kind) {
    bound(schema, READER.constructType(kind));
  }

  private static void bound(JsonNode schema, JavaType type) {
    if (!(schema instanceof ObjectNode s) || type == null) {
      return;
    }
    if ("integer".equals(s.path("type").asText())) {
      Class<?> c = type.getRawClass();
      if (c == Integer.class || c == int.class) {
        bounds(s, "int32", Integer.MIN_VALUE, Integer.MAX_VALUE);
      } else if (c == Long.class || c == long.class) {
        bounds(s, "int64", -Quantities.MAX, Quantities.MAX);
      }
      return;
    }
    if (type.isContainerType()) {
      bound(s.get("items"), type.getContentType());
      bound(s.get("additionalProperties"), type.getContentType());
      return;
    }
    JsonNode properties = s.get("properties");
    if (properties == null || type.getRawClass().getName().startsWith("java.")) {
      return;
    }
    BeanDescription bean = READER.getDeserializationConfig().introspect(type);
    for (BeanPropertyDefinition p : bean.findProperties()) {
      bound(properties.get(p.getName()), p.getPrimaryType());
    }
  }

  private static void bounds(ObjectNode s, String format, long min, long max) {
    if (s.has("minimum") && s.has("maximum")) {
      return; // bounded by its own annotations
    }
    if (!s.has("format")) {
      s.put("format", format);
    }
    if (!s.has("minimum")) {
      s.put("minimum", min);
    }
    if (!s.has("maximum")) {
      s.put("maximum", max);
    }
  }
}
