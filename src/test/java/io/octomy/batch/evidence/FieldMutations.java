package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.RandomGenerator;

/**
 * The kinds of damage done to one field, each a value put where the field's value was. The values
 * come from jqwik's generators (with their edge cases: empty strings, {@code Long.MIN_VALUE}, ...)
 * drawn from the run's seeded random, so a seed names a run.
 */
final class FieldMutations {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  /** Every kind, in the order a run tries them on a field. */
  static final List<String> KINDS =
      List.of(
          "null",
          "wrong-type",
          "empty",
          "negative",
          "huge",
          "fraction",
          "control-characters",
          "non-bmp",
          "lone-surrogate",
          "long",
          "deep",
          "wide",
          "null-item",
          "unknown-field");

  private final RandomGenerator<String> control =
      gen(
          Arbitraries.strings()
              .withCharRange('\u0000', '\u001f')
              .withChars('a', '\u007f', '\u0085', '\u2028', '\u202e', '\ufeff')
              .ofMinLength(1)
              .ofMaxLength(24));
  private final RandomGenerator<String> nonBmp =
      gen(
          Arbitraries.integers()
              .between(0x10000, 0x10FFFF)
              .list()
              .ofMinSize(1)
              .ofMaxSize(12)
              .map(cps -> new String(cps.stream().mapToInt(i -> i).toArray(), 0, cps.size())));
  private final RandomGenerator<Long> negative = gen(Arbitraries.longs().lessOrEqual(-1));
  private final RandomGenerator<BigInteger> huge =
      gen(
          Arbitraries.bigIntegers()
              .between(
                  BigInteger.valueOf(Integer.MAX_VALUE).add(BigInteger.ONE),
                  BigInteger.TEN.pow(40)));
  private final RandomGenerator<Integer> depth = gen(Arbitraries.integers().between(20, 400));
  private final RandomGenerator<Integer> width = gen(Arbitraries.integers().between(300, 5000));

  private final Random random;

  /** Inside a {@link net.jqwik.api.sessions.JqwikSession}, which jqwik's generators need. */
  FieldMutations(Random random) {
    this.random = random;
  }

  private static <T> RandomGenerator<T> gen(Arbitrary<T> a) {
    return a.generator(1000, true);
  }

  /** Whether {@code kind} means anything for a field of {@code type}. */
  static boolean applies(String kind, String type) {
    boolean text = type.equals("string") || type.equals("any");
    boolean number = type.equals("integer") || type.equals("number");
    boolean container = type.equals("object") || type.equals("array") || type.equals("any");
    return switch (kind) {
      case "null", "wrong-type" -> true;
      case "empty" -> !type.equals("boolean");
      case "negative", "huge" -> number;
      case "fraction" -> type.equals("integer");
      case "control-characters", "non-bmp", "lone-surrogate", "long" -> text;
      case "deep", "wide", "null-item" -> container;
      case "unknown-field" -> type.equals("object") || type.equals("any");
      default -> throw new IllegalArgumentException(kind);
    };
  }

  /** The value {@code kind} puts in a field of {@code type}. */
  JsonNode value(String kind, String type) {
    Random r = random;
    return switch (kind) {
      case "null" -> F.nullNode();
      case "wrong-type" -> wrongType(type, r);
      case "empty" ->
          switch (type) {
            case "integer", "number" -> F.numberNode(0);
            case "object" -> F.objectNode();
            case "array" -> F.arrayNode();
            default -> F.textNode("");
          };
      case "negative" -> F.numberNode(negative.next(r).value());
      case "huge" ->
          r.nextBoolean() ? F.numberNode(huge.next(r).value()) : F.numberNode(1e308 * r.nextInt(2));
      case "fraction" -> F.numberNode(0.5 + r.nextInt(1000));
      case "control-characters" -> F.textNode("a" + control.next(r).value());
      case "non-bmp" -> F.textNode(nonBmp.next(r).value());
      case "lone-surrogate" -> F.textNode("x" + (char) (0xD800 + r.nextInt(0x800)) + "y");
      case "long" -> F.textNode("l".repeat(width.next(r).value() * 60));
      case "deep" -> deep(depth.next(r).value(), type.equals("array"));
      case "wide" -> wide(width.next(r).value(), type.equals("array"));
      case "null-item" ->
          type.equals("array")
              ? F.arrayNode().addNull()
              : F.objectNode().putNull(FuzzedFields.MAP_KEY);
      default -> throw new IllegalArgumentException(kind);
    };
  }

  private static JsonNode wrongType(String type, Random r) {
    List<JsonNode> others =
        switch (type) {
          case "string" ->
              List.of(F.numberNode(7), F.booleanNode(true), F.objectNode().put("a", 1));
          case "integer", "number" -> List.of(F.textNode("7"), F.textNode("500m"), F.arrayNode());
          case "boolean" -> List.of(F.textNode("true"), F.numberNode(1));
          case "array" -> List.of(F.textNode("x"), F.numberNode(1), F.objectNode().put("a", 1));
          default -> List.of(F.textNode("x"), F.arrayNode().add(1), F.numberNode(1));
        };
    return others.get(r.nextInt(others.size()));
  }

  private static JsonNode deep(int depth, boolean array) {
    JsonNode at = F.textNode("bottom");
    for (int i = 0; i < depth; i++) {
      at = array ? F.arrayNode().add(at) : F.objectNode().set("d", at);
    }
    return at;
  }

  private static JsonNode wide(int width, boolean array) {
    if (array) {
      ArrayNode a = F.arrayNode();
      for (int i = 0; i < width; i++) {
        a.add("w" + i);
      }
      return a;
    }
    ObjectNode o = F.objectNode();
    for (int i = 0; i < width; i++) {
      o.put("example.com/w" + i, "w");
    }
    return o;
  }

  /** What {@code unknown-field} adds to an object: a field no schema names, odd name or not. */
  String unknownFieldName() {
    return random.nextBoolean() ? "fuzzUnknown" : "fuzz" + control.next(random).value();
  }
}
