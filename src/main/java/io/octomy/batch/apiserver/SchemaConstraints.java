package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * The value constraints of an OpenAPI schema, checked as the real API server checks them and worded
 * as it words them: enum, minimum/maximum (exclusive or not), minLength/maxLength (in characters),
 * pattern, and minItems/maxItems, minProperties/maxProperties. {@link SchemaValidator} walks the
 * object and calls these at each node.
 */
final class SchemaConstraints {

  /**
   * Compiled schema patterns (empty for one Java cannot compile). They come from the installed
   * CRDs, so there are few; a schema that somehow held thousands only empties the memo now and
   * then.
   */
  private static final Map<String, Optional<Pattern>> COMPILED = new ConcurrentHashMap<>();

  private static final int MOST_COMPILED = 1024;

  private SchemaConstraints() {}

  /** Enum, minimum/maximum, lengths and pattern of one value; each violation goes to causes. */
  static void checkScalar(
      JsonNode schema, JsonNode node, String path, String where, List<ApiException.Cause> causes) {
    JsonNode enumValues = schema.get("enum");
    if (enumValues instanceof ArrayNode values && !contains(values, node)) {
      causes.add(
          new ApiException.Cause(
              path,
              "Unsupported value: "
                  + literal(node)
                  + ": supported values: "
                  + values
                      .valueStream()
                      .map(SchemaConstraints::literal)
                      .collect(Collectors.joining(", ")),
              "FieldValueNotSupported"));
    }
    if (node.isNumber()) {
      if (schema.has("minimum")) {
        double min = schema.get("minimum").asDouble();
        boolean exclusive = schema.path("exclusiveMinimum").asBoolean(false);
        if (exclusive ? node.asDouble() <= min : node.asDouble() < min) {
          causes.add(
              cause(
                  path,
                  "Invalid value: "
                      + node
                      + ": "
                      + where
                      + " in body should be greater than "
                      + (exclusive ? "" : "or equal to ")
                      + goNumber(schema.get("minimum"))));
        }
      }
      if (schema.has("maximum")) {
        double max = schema.get("maximum").asDouble();
        boolean exclusive = schema.path("exclusiveMaximum").asBoolean(false);
        if (exclusive ? node.asDouble() >= max : node.asDouble() > max) {
          causes.add(
              cause(
                  path,
                  "Invalid value: "
                      + node
                      + ": "
                      + where
                      + " in body should be less than "
                      + (exclusive ? "" : "or equal to ")
                      + goNumber(schema.get("maximum"))));
        }
      }
    }
    if (node.isTextual()) {
      String s = node.asText();
      int length = s.codePointCount(0, s.length());
      if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
        causes.add(
            new ApiException.Cause(
                path,
                "Too long: may not be more than " + schema.get("maxLength").asInt() + " bytes",
                "FieldValueTooLong"));
      }
      if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
        causes.add(
            cause(
                path,
                "Invalid value: "
                    + literal(node)
                    + ": "
                    + where
                    + " in body should be at least "
                    + schema.get("minLength").asInt()
                    + " chars long"));
      }
      if (schema.has("pattern") && !matches(schema.get("pattern").asText(), s)) {
        causes.add(
            cause(
                path,
                "Invalid value: "
                    + literal(node)
                    + ": "
                    + where
                    + " in body should match '"
                    + schema.get("pattern").asText()
                    + "'"));
      }
    }
  }

  private static boolean matches(String pattern, String value) {
    if (COMPILED.size() > MOST_COMPILED) {
      COMPILED.clear();
    }
    // OpenAPI patterns are unanchored (ECMA 262 search semantics); one Java cannot read constrains
    // nothing, as before the memo.
    return COMPILED
        .computeIfAbsent(pattern, SchemaConstraints::compile)
        .map(p -> p.matcher(value).find())
        .orElse(true);
  }

  private static Optional<Pattern> compile(String pattern) {
    try {
      return Optional.of(Pattern.compile(pattern));
    } catch (PatternSyntaxException e) {
      return Optional.empty();
    }
  }

  /** maxItems/minItems, maxProperties/minProperties. */
  static void checkCount(
      JsonNode schema,
      String what,
      int count,
      String path,
      String where,
      List<ApiException.Cause> causes) {
    JsonNode max = schema.get("max" + what);
    if (max != null && count > max.asInt()) {
      causes.add(
          new ApiException.Cause(
              path,
              "Too many: " + count + ": must have at most " + max.asInt() + " items",
              "FieldValueTooMany"));
    }
    JsonNode min = schema.get("min" + what);
    if (min != null && count < min.asInt()) {
      causes.add(
          cause(
              path,
              "Invalid value: "
                  + count
                  + ": "
                  + where
                  + " in body should have at least "
                  + min.asInt()
                  + (what.equals("Items") ? " items" : " properties")));
    }
  }

  private static boolean contains(ArrayNode values, JsonNode node) {
    for (JsonNode v : values) {
      if (v.equals(node) || (v.isNumber() && node.isNumber() && v.asDouble() == node.asDouble())) {
        return true;
      }
    }
    return false;
  }

  private static ApiException.Cause cause(String path, String message) {
    return new ApiException.Cause(path, message, "FieldValueInvalid");
  }

  private static String literal(JsonNode node) {
    return node.isTextual() ? quoted(node.asText()) : node.toString();
  }

  /**
   * A string as the real server quotes it in a message (Go's {@code %q}): quotes, backslashes and
   * control characters escaped, so a NUL or a line break in a value shows as {@code \x00} or {@code
   * \n} instead of breaking the message.
   */
  static String quoted(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        case '\u0007' -> out.append("\\a");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\u000b' -> out.append("\\v");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /**
   * A bound as the real server words it: Go prints a float64 with %v, so a whole 1.0 (how a CRD
   * generator may write an integer field's minimum) reads "1".
   */
  static String goNumber(JsonNode bound) {
    double d = bound.asDouble();
    if (bound.isFloatingPointNumber() && d == Math.rint(d) && Math.abs(d) < 1e21) {
      return new java.math.BigDecimal(d).toBigInteger().toString();
    }
    return bound.toString();
  }
}
