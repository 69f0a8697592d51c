package io.octomy.batch.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles and evaluates a CRD's {@code x-kubernetes-validations} rules with standard CEL, the way
 * an API server does: {@code self} is the value at the schema node that carries the rule.
 */
public final class CelRules {

  /** One rule and where in the schema it sits (a JSON pointer into the object, like /spec/resources). */
  public record Rule(String path, String expression, String message) {}

  private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
      .addVar("self", SimpleType.DYN)
      .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
      .build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  private CelRules() {}

  /** Every rule in an openAPIV3Schema, depth first, with the object path it applies to. */
  public static List<Rule> rulesOf(JsonNode schema) {
    List<Rule> out = new ArrayList<>();
    collect(schema, "", out);
    return out;
  }

  private static void collect(JsonNode schema, String path, List<Rule> out) {
    schema.path("x-kubernetes-validations").forEach(r ->
        out.add(new Rule(path.isEmpty() ? "/" : path, r.path("rule").asText(), r.path("message").asText())));
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields(); it.hasNext(); ) {
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

  /** A compiled rule, ready to evaluate many times. */
  public static CelRuntime.Program compile(String expression) {
    try {
      CelAbstractSyntaxTree ast = COMPILER.compile(expression).getAst();
      return RUNTIME.createProgram(ast);
    } catch (CelValidationException | CelEvaluationException e) {
      throw new IllegalArgumentException("CEL rule does not compile: " + expression + ": " + e.getMessage(), e);
    }
  }

  /** True when the rule holds for {@code self}. */
  public static boolean holds(CelRuntime.Program program, JsonNode self) {
    try {
      Object result = program.eval(Map.of("self", toCel(self)));
      return Boolean.TRUE.equals(result);
    } catch (CelEvaluationException e) {
      // An API server reports an evaluation error as a failed rule too.
      return false;
    }
  }

  /** Jackson tree to the Java values CEL expects: int64 as Long, lists, maps with string keys. */
  public static Object toCel(JsonNode n) {
    if (n.isObject()) {
      Map<String, Object> m = new LinkedHashMap<>();
      n.fields().forEachRemaining(e -> m.put(e.getKey(), toCel(e.getValue())));
      return m;
    }
    if (n.isArray()) {
      List<Object> l = new ArrayList<>();
      n.forEach(x -> l.add(toCel(x)));
      return l;
    }
    if (n.isIntegralNumber()) {
      return n.longValue();
    }
    if (n.isNumber()) {
      return n.doubleValue();
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    if (n.isNull()) {
      return dev.cel.common.values.NullValue.NULL_VALUE;
    }
    return n.asText();
  }
}
