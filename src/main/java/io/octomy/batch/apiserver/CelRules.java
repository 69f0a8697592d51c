package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.NullValue;
import com.google.re2j.Pattern;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.checker.CelStandardDeclarations;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.exceptions.CelInvalidArgumentException;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelStandardFunctions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiles and evaluates {@code x-kubernetes-validations} rules with cel-java.
 *
 * <p>Standard CEL plus the strings, math, lists, sets and regex extensions; {@code self} (and
 * {@code oldSelf} for transition rules) are dynamically typed and bound to the JSON value at the
 * rule's schema node. Kubernetes-only libraries ({@code quantity()}, {@code url()}, {@code
 * isSorted()} on lists with the Kubernetes signature, ...) are not available. Programs are compiled
 * once per rule text and reused, and so are the regular expressions of {@code matches()}: cel-java
 * compiles the pattern on every call, which made it a tenth of the server's work per create.
 */
public final class CelRules {

  private final Cel cel;
  private final Map<String, CelRuntime.Program> programs = new ConcurrentHashMap<>();

  /**
   * Patterns of {@code matches()}, compiled once. Rule texts hold a few constant patterns; a rule
   * whose pattern comes from the object could bring any number, so past this many they are compiled
   * per call again, as cel-java does.
   */
  private static final int PATTERNS_KEPT = 1_000;

  private final Map<String, Pattern> patterns = new ConcurrentHashMap<>();
  private final CelOptions options;

  public CelRules() {
    this.options =
        CelOptions.current()
            .enableHeterogeneousNumericComparisons(true)
            .comprehensionMaxIterations(100_000)
            .build();
    this.cel =
        CelFactory.standardCelBuilder()
            .setOptions(options)
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            // the standard library, given explicitly so that matches() can be replaced
            .setStandardEnvironmentEnabled(false)
            .setStandardDeclarations(CelStandardDeclarations.newBuilder().build())
            .setStandardFunctions(
                CelStandardFunctions.newBuilder()
                    .excludeFunctions(CelStandardFunctions.StandardFunction.MATCHES)
                    .build())
            .addFunctionBindings(
                CelFunctionBinding.from("matches", String.class, String.class, this::matches),
                CelFunctionBinding.from(
                    "matches_string", String.class, String.class, this::matches))
            .addVar("self", SimpleType.DYN)
            .addVar("oldSelf", SimpleType.DYN)
            .addCompilerLibraries(
                CelExtensions.strings(),
                CelExtensions.math(options),
                CelExtensions.lists(),
                CelExtensions.sets(options),
                CelExtensions.regex())
            .addRuntimeLibraries(
                CelExtensions.strings(),
                CelExtensions.math(options),
                CelExtensions.lists(),
                CelExtensions.sets(options),
                CelExtensions.regex())
            .build();
  }

  /**
   * CEL's {@code matches()} as cel-java's standard function answers it (the same options, the same
   * error for a bad pattern), with the pattern compiled once.
   */
  private Object matches(String text, String regex) throws CelEvaluationException {
    try {
      Pattern pattern = patterns.get(regex);
      if (pattern == null) {
        pattern = Pattern.compile(regex);
        int limit = options.maxRegexProgramSize();
        if (limit >= 0 && pattern.programSize() > limit) {
          throw new IllegalArgumentException(
              String.format(
                  "Regex pattern exceeds allowed program size. Allowed: %d, Provided: %d",
                  limit, pattern.programSize()));
        }
        if (patterns.size() < PATTERNS_KEPT) {
          patterns.put(regex, pattern);
        }
      }
      return options.enableRegexPartialMatch()
          ? pattern.matcher(text).find()
          : pattern.matcher(text).matches();
    } catch (RuntimeException e) {
      throw new CelInvalidArgumentException(e);
    }
  }

  /**
   * One rule and where in the schema it sits (a JSON pointer into the object, like
   * /spec/resources); its messageExpression is null when it has none.
   */
  public record Rule(String path, String expression, String message, String messageExpression) {}

  /** Every rule in an openAPIV3Schema, depth first, with the object path it applies to. */
  public static List<Rule> rulesOf(JsonNode schema) {
    List<Rule> out = new ArrayList<>();
    collect(schema, "", out);
    return out;
  }

  private static void collect(JsonNode schema, String path, List<Rule> out) {
    schema
        .path("x-kubernetes-validations")
        .forEach(
            r ->
                out.add(
                    new Rule(
                        path.isEmpty() ? "/" : path,
                        r.path("rule").asText(),
                        r.path("message").asText(),
                        r.hasNonNull("messageExpression")
                            ? r.get("messageExpression").asText()
                            : null)));
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      collect(p.getValue(), path + "/" + p.getKey(), out);
    }
    if (schema.has("items")) {
      collect(schema.get("items"), path + "/*", out);
    }
    if (schema.path("additionalProperties").isObject()) {
      collect(schema.get("additionalProperties"), path + "/*", out);
    }
  }

  /**
   * True when the rule holds for {@code self}; an evaluation error counts as a failed rule, as on
   * an API server.
   */
  public boolean holds(String rule, JsonNode self) {
    try {
      return Boolean.TRUE.equals(evaluate(rule, self, null));
    } catch (CelEvaluationException e) {
      return false;
    }
  }

  /**
   * Compiles a rule (cached).
   *
   * @throws IllegalArgumentException with the compiler's message when the rule is not valid CEL
   */
  public CelRuntime.Program program(String rule) {
    return programs.computeIfAbsent(
        rule,
        r -> {
          CelValidationResult result = cel.compile(r);
          if (result.hasError()) {
            throw new IllegalArgumentException(
                "invalid x-kubernetes-validations rule " + r + ": " + result.getErrorString());
          }
          try {
            return cel.createProgram(result.getAst());
          } catch (CelValidationException | CelEvaluationException e) {
            throw new IllegalArgumentException(
                "invalid x-kubernetes-validations rule " + r + ": " + e.getMessage(), e);
          }
        });
  }

  /**
   * Compiles every rule of a schema, so that a CRD with a broken rule is refused when installed.
   */
  public void compileAll(JsonNode schema) {
    if (schema == null || !schema.isObject()) {
      return;
    }
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      program(rule.path("rule").asText());
      if (rule.hasNonNull("messageExpression")) {
        program(rule.path("messageExpression").asText());
      }
    }
    schema.path("properties").forEach(this::compileAll);
    compileAll(schema.get("items"));
    compileAll(schema.get("additionalProperties"));
  }

  /**
   * Evaluates a compiled rule or message expression.
   *
   * @param oldSelf the previous value, or {@code null} when there is none
   * @throws CelEvaluationException when evaluation fails (e.g. no such key)
   */
  public Object evaluate(String expression, JsonNode self, JsonNode oldSelf)
      throws CelEvaluationException {
    Map<String, Object> vars = new HashMap<>();
    vars.put("self", toCel(self));
    if (oldSelf != null) {
      vars.put("oldSelf", toCel(oldSelf));
    }
    return program(expression).eval(vars);
  }

  /** Whether a rule is a transition rule (it needs the old value and is skipped on create). */
  public static boolean usesOldSelf(String rule) {
    return rule.contains("oldSelf");
  }

  /** JSON to the values CEL's dynamic type understands: maps, lists, long, double, string, bool. */
  public static Object toCel(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        map.put(e.getKey(), toCel(e.getValue()));
      }
      return map;
    } else if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(n -> list.add(toCel(n)));
      return list;
    } else if (node.isIntegralNumber()) {
      return node.asLong();
    } else if (node.isNumber()) {
      return node.asDouble();
    } else if (node.isBoolean()) {
      return node.asBoolean();
    } else if (node.isNull() || node.isMissingNode()) {
      return NullValue.NULL_VALUE;
    }
    return node.asText();
  }
}
