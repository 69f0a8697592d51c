package io.octomy.batch.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a BatchJob spec field by field and never fails. A field of the wrong type (say {@code
 * group: [1, 2]}) is kept aside as written, in {@link BatchJobSpec#malformed()}, so the validator
 * can reject the job with a sentence. Read strictly, one such object from an API server that skips
 * schema validation would fail the informer's whole list and stop every decision.
 */
public class LenientSpecDeserializer extends JsonDeserializer<BatchJobSpec> {

  private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};

  @Override
  public BatchJobSpec deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    ObjectCodec codec = p.getCodec();
    JsonNode tree = codec.readTree(p);
    BatchJobSpec spec = new BatchJobSpec();
    if (tree == null || !tree.isObject()) {
      spec.malformed().set("", tree == null ? JsonNodeFactory.instance.nullNode() : tree);
      return spec;
    }
    ObjectNode bad = spec.malformed();
    tree.fields()
        .forEachRemaining(
            e -> {
              String field = e.getKey();
              JsonNode v = e.getValue();
              try {
                switch (field) {
                  case "type" -> spec.setType(text(v));
                  case "group" -> spec.setGroup(text(v));
                  case "origin" -> spec.setOrigin(text(v));
                  case "after" ->
                      spec.setAfter(
                          v.isNull() ? null : codec.readValue(codec.treeAsTokens(v), STRINGS));
                  case "locks" ->
                      spec.setLocks(
                          v.isNull() ? null : codec.readValue(codec.treeAsTokens(v), STRINGS));
                  case "suspend" -> spec.setSuspend(bool(v));
                  case "backoffLimit" -> {
                    Long limit = whole(v, Integer.MAX_VALUE);
                    spec.setBackoffLimit(limit == null ? null : limit.intValue());
                  }
                  case "activeDeadlineSeconds" ->
                      spec.setActiveDeadlineSeconds(whole(v, Long.MAX_VALUE));
                  case "nodeSelector" -> spec.setNodeSelector(labels(v));
                  case "array" -> spec.setArray(array(v));
                  case "replicas" -> {
                    Long replicas = whole(v, Integer.MAX_VALUE);
                    spec.setReplicas(replicas == null ? null : replicas.intValue());
                  }
                  case "ttlSecondsAfterFinished" -> spec.setTtlSecondsAfterFinished(seconds(v));
                  case "resources" ->
                      spec.setResources(v.isNull() ? null : codec.treeToValue(v, Resources.class));
                  case "template" ->
                      spec.setTemplate(
                          v.isNull() ? null : codec.treeToValue(v, PodTemplateSpec.class));
                  default ->
                      bad.set(field, v); // unknown: the validator names it and lists the fields
                }
              } catch (IOException | IllegalArgumentException ex) {
                bad.set(field, v);
              }
            });
    return spec;
  }

  /**
   * {@code {count, maxRunning}}, each a whole number when given; anything else (a string count, an
   * unknown field) is malformed, so the validator names it.
   */
  private static ArraySpec array(JsonNode v) {
    if (v.isNull()) {
      return null;
    }
    if (!v.isObject()) {
      throw new IllegalArgumentException("not a mapping");
    }
    ArraySpec array = new ArraySpec();
    for (var it = v.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      Long n = whole(v.get(f), Integer.MAX_VALUE);
      Integer value = n == null ? null : Math.toIntExact(n);
      switch (f) {
        case "count" -> array.setCount(value);
        case "maxRunning" -> array.setMaxRunning(value);
        default -> throw new IllegalArgumentException("unknown field " + f);
      }
    }
    return array;
  }

  /** A whole number of seconds from 0 to an int32's most: "60" or 1.5 is malformed. */
  private static Integer seconds(JsonNode v) {
    if (v.isNull()) {
      return null;
    }
    if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 0) {
      throw new IllegalArgumentException("not a whole number of seconds");
    }
    return v.intValue();
  }

  /**
   * A mapping of strings only: a number where a label value goes is malformed, not turned into
   * text.
   */
  private static Map<String, String> labels(JsonNode v) {
    if (v.isNull()) {
      return null;
    }
    if (!v.isObject()) {
      throw new IllegalArgumentException("not a mapping");
    }
    Map<String, String> labels = new LinkedHashMap<>();
    v.fields().forEachRemaining(e -> labels.put(e.getKey(), text(e.getValue())));
    if (labels.containsValue(null)) {
      throw new IllegalArgumentException("a null label value");
    }
    return labels;
  }

  /** A whole number that fits; a fraction or text where a count goes is malformed. */
  private static Long whole(JsonNode v, long max) {
    if (v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() > max) {
      throw new IllegalArgumentException("not a whole number");
    }
    return v.longValue();
  }

  /** True or false only: "yes" or 1 where a flag goes is malformed. */
  private static Boolean bool(JsonNode v) {
    if (v.isNull()) {
      return null;
    }
    if (!v.isBoolean()) {
      throw new IllegalArgumentException("not a boolean");
    }
    return v.booleanValue();
  }

  /**
   * Strings only: a number or a list where a name goes is malformed, not quietly turned into text.
   */
  private static String text(JsonNode v) {
    if (v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException("not a string");
    }
    return v.asText();
  }
}
