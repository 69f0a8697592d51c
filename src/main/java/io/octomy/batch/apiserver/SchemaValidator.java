package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cel.runtime.CelEvaluationException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Admission for custom resources, the way a real API server does it: defaults from the schema are
 * filled in, fields the schema does not know are pruned (unless {@code
 * x-kubernetes-preserve-unknown-fields}), then the object is checked against its CRD's {@code
 * openAPIV3Schema} (type, required, and enum, bounds, lengths, counts, pattern: {@link
 * SchemaConstraints}) and the {@code x-kubernetes-validations} CEL rules. Messages follow the real
 * server's wording so that people recognise them, e.g. {@code spec.priority: Invalid value: 7:
 * spec.priority in body should be less than or equal to 5}.
 */
final class SchemaValidator {

  private static final Set<String> ROOT_FIELDS = Set.of("apiVersion", "kind", "metadata");

  private final CelRules cel;

  SchemaValidator(CelRules cel) {
    this.cel = cel;
  }

  /**
   * Normalises {@code object} in place (defaults, pruning) and returns every violation.
   *
   * @param old the stored object on update (for transition rules), {@code null} on create
   */
  List<ApiException.Cause> validate(JsonNode schema, ObjectNode object, JsonNode old) {
    return validate(schema, object, old, List.of());
  }

  /**
   * As {@link #validate(JsonNode, ObjectNode, JsonNode)}, after causes found in the metadata: they
   * come first, and they too keep the CEL rules from running when they are blocking ones.
   */
  List<ApiException.Cause> validate(
      JsonNode schema, ObjectNode object, JsonNode old, List<ApiException.Cause> metadata) {
    List<ApiException.Cause> causes = new ArrayList<>(metadata);
    if (schema != null && schema.isObject() && schema.size() > 0) {
      List<ApiException.Cause> ruleCauses = new ArrayList<>();
      walk(schema, object, old, "", true, causes, ruleCauses);
      // As the real server does: a wrong type, a missing field, an unsupported enum value or a
      // size over its bound means the CEL rules are not run at all, and the answer says so.
      if (causes.stream().anyMatch(c -> BLOCKING_RULES.contains(c.reason()))) {
        if (hasRules(schema)) {
          causes.add(RULES_NOT_CHECKED);
        }
      } else {
        causes.addAll(ruleCauses);
      }
    }
    return causes;
  }

  private static boolean hasRules(JsonNode schema) {
    return !schema.findValues("x-kubernetes-validations").isEmpty();
  }

  /** Cause reasons after which the real server skips x-kubernetes-validations. */
  private static final Set<String> BLOCKING_RULES =
      Set.of(
          "FieldValueNotSupported",
          "FieldValueRequired",
          "FieldValueTooLong",
          "FieldValueTooMany",
          "FieldValueTypeInvalid");

  private static final ApiException.Cause RULES_NOT_CHECKED =
      new ApiException.Cause(
          "<nil>",
          "Invalid value: null: some validation rules were not checked because the object was"
              + " invalid; correct the existing errors to complete validation",
          "FieldValueInvalid");

  /**
   * @return whether the node itself has the right type (CEL rules run only then)
   */
  private boolean walk(
      JsonNode schema,
      JsonNode node,
      JsonNode old,
      String path,
      boolean root,
      List<ApiException.Cause> causes,
      List<ApiException.Cause> ruleCauses) {
    String type = schema.path("type").asText("");
    String where = path.isEmpty() ? "<root>" : path;
    if (!typeMatches(schema, type, node)) {
      causes.add(
          new ApiException.Cause(
              path,
              "Invalid value: \""
                  + kindOf(node)
                  + "\": "
                  + where
                  + " in body must be of type "
                  + type
                  + ": \""
                  + kindOf(node)
                  + "\"",
              "FieldValueTypeInvalid"));
      return false;
    }
    SchemaConstraints.checkScalar(schema, node, path, where, causes);
    if (node.isObject()) {
      ObjectNode obj = (ObjectNode) node;
      JsonNode properties = schema.path("properties");
      fillDefaults(properties, obj);
      prune(schema, obj, root);
      for (JsonNode required : schema.path("required")) {
        if (!obj.has(required.asText())) {
          causes.add(
              new ApiException.Cause(
                  join(path, required.asText()), "Required value", "FieldValueRequired"));
        }
      }
      SchemaConstraints.checkCount(schema, "Properties", obj.size(), path, where, causes);
      Iterator<Map.Entry<String, JsonNode>> fields = obj.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        if (root && f.getKey().equals("metadata")) {
          continue;
        }
        JsonNode child = properties.get(f.getKey());
        if (child == null && schema.get("additionalProperties") instanceof ObjectNode additional) {
          child = additional;
        }
        if (child != null) {
          f.setValue(whole(child, f.getValue()));
          walk(
              child,
              f.getValue(),
              old == null ? null : old.get(f.getKey()),
              join(path, f.getKey()),
              false,
              causes,
              ruleCauses);
        }
      }
    } else if (node.isArray()) {
      SchemaConstraints.checkCount(schema, "Items", node.size(), path, where, causes);
      JsonNode items = schema.get("items");
      if (items != null) {
        for (int i = 0; i < node.size(); i++) {
          // list items are not correlated with the old list: transition rules below a list are
          // skipped
          ((ArrayNode) node).set(i, whole(items, node.get(i)));
          walk(items, node.get(i), null, path + "[" + i + "]", false, causes, ruleCauses);
        }
      }
    }
    rules(schema, node, old, path, ruleCauses);
    return true;
  }

  /**
   * An integral fraction ({@code 0.0}, {@code 2e3}) in an integer field as the whole number, as the
   * real server stores it (Go writes such a float64 without a point). Kept as written, the
   * product's readers of an {@code int} field could not read it: {@code status.array.running: 0.0}
   * stopped the controller's informer.
   */
  private static JsonNode whole(JsonNode schema, JsonNode node) {
    if (!"integer".equals(schema.path("type").asText())
        || !node.isFloatingPointNumber()
        || node.asDouble() != Math.rint(node.asDouble())
        || Double.isInfinite(node.asDouble())) {
      return node;
    }
    return JsonNodeFactory.instance.numberNode(node.decimalValue().toBigInteger());
  }

  private static boolean typeMatches(JsonNode schema, String type, JsonNode node) {
    if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
      return node.isIntegralNumber() || node.isTextual();
    }
    return switch (type) {
      case "object" -> node.isObject();
      case "array" -> node.isArray();
      case "string" -> node.isTextual();
      case "integer" ->
          node.isIntegralNumber()
              || (node.isNumber() && node.asDouble() == Math.rint(node.asDouble()));
      case "number" -> node.isNumber();
      case "boolean" -> node.isBoolean();
      default -> true;
    };
  }

  private static void fillDefaults(JsonNode properties, ObjectNode obj) {
    Iterator<Map.Entry<String, JsonNode>> it = properties.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> p = it.next();
      JsonNode current = obj.get(p.getKey());
      if (current != null && current.isNull() && !p.getValue().path("nullable").asBoolean(false)) {
        // like the real server, a null in a non-nullable field is dropped before defaulting
        obj.remove(p.getKey());
        current = null;
      }
      if (current == null && p.getValue().has("default")) {
        obj.set(p.getKey(), p.getValue().get("default").deepCopy());
      }
    }
  }

  private static void prune(JsonNode schema, ObjectNode obj, boolean root) {
    if (schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
        || schema.has("additionalProperties")) {
      return;
    }
    JsonNode properties = schema.path("properties");
    obj.retain(
        obj.properties().stream()
            .map(Map.Entry::getKey)
            .filter(k -> properties.has(k) || (root && ROOT_FIELDS.contains(k)))
            .collect(Collectors.toList()));
  }

  private void rules(
      JsonNode schema, JsonNode node, JsonNode old, String path, List<ApiException.Cause> causes) {
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      String expression = rule.path("rule").asText();
      boolean transition = CelRules.usesOldSelf(expression);
      if (transition && old == null) {
        continue;
      }
      if (!transition && node.equals(old)) {
        // Ratcheting, as the real server does (CRD validation ratcheting, on by default since
        // 1.30): a rule without oldSelf holds no error against a value the update left unchanged.
        // A status write leaves the spec as it is, so its rules are not evaluated again.
        continue;
      }
      String field = rule.hasNonNull("fieldPath") ? path + rule.get("fieldPath").asText() : path;
      if (field.startsWith(".")) {
        field = field.substring(1);
      }
      String reason = rule.path("reason").asText("FieldValueInvalid");
      try {
        Object result = cel.evaluate(expression, node, transition ? old : null);
        if (!Boolean.TRUE.equals(result)) {
          causes.add(
              new ApiException.Cause(
                  field,
                  "Invalid value: \""
                      + kindOf(node)
                      + "\": "
                      + message(rule, node, old, expression),
                  reason));
        }
      } catch (CelEvaluationException | IllegalArgumentException e) {
        causes.add(
            new ApiException.Cause(
                field,
                "Invalid value: \""
                    + kindOf(node)
                    + "\": rule "
                    + expression
                    + " could not be evaluated: "
                    + e.getMessage(),
                reason));
      }
    }
  }

  /** The longest message a messageExpression may give, in bytes, as on the real server. */
  static final int MAX_MESSAGE_BYTES = 5 * 1024;

  private String message(JsonNode rule, JsonNode node, JsonNode old, String expression) {
    if (rule.hasNonNull("messageExpression")) {
      try {
        Object m = cel.evaluate(rule.get("messageExpression").asText(), node, old);
        // The real server trims it, and takes the static message for one that is empty, too long
        // or more than one line (a map key quoted in it can hold a line break).
        String s = m instanceof String text ? text.strip() : "";
        if (!s.isEmpty()
            && s.getBytes(StandardCharsets.UTF_8).length <= MAX_MESSAGE_BYTES
            && s.indexOf('\n') < 0) {
          return s;
        }
      } catch (CelEvaluationException | IllegalArgumentException e) {
        // fall back to the static message, as the real server does
      }
    }
    return rule.hasNonNull("message") ? rule.get("message").asText() : "failed rule: " + expression;
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private static String kindOf(JsonNode node) {
    if (node.isObject()) {
      return "object";
    } else if (node.isArray()) {
      return "array";
    }
    return node.isTextual()
        ? "string"
        : node.isNumber()
            ? (node.isIntegralNumber() ? "integer" : "number")
            : node.isBoolean() ? "boolean" : "null";
  }
}
