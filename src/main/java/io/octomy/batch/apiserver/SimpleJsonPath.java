package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSONPath subset of {@code additionalPrinterColumns}: {@code .a.b}, {@code .a[0]}, {@code
 * .a[*].b} and filters {@code .a[?(@.type=="Ready")].status}, with or without braces. A real API
 * server accepts only "simple" paths in printer columns too.
 */
final class SimpleJsonPath {

  private sealed interface Step permits Field, Index, All, Filter {}

  private record Field(String name) implements Step {}

  private record Index(int index) implements Step {}

  private record All() implements Step {}

  private record Filter(List<String> path, String value) implements Step {}

  private final List<Step> steps;

  private SimpleJsonPath(List<Step> steps) {
    this.steps = steps;
  }

  /**
   * @throws IllegalArgumentException on syntax outside the subset
   */
  static SimpleJsonPath parse(String expression) {
    String s = expression.trim();
    if (s.startsWith("{") && s.endsWith("}")) {
      s = s.substring(1, s.length() - 1).trim();
    }
    if (s.startsWith("$")) {
      s = s.substring(1);
    }
    List<Step> steps = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '.') {
        int end = i + 1;
        while (end < s.length() && s.charAt(end) != '.' && s.charAt(end) != '[') {
          end++;
        }
        if (end > i + 1) {
          steps.add(new Field(s.substring(i + 1, end)));
        }
        i = end;
      } else if (c == '[') {
        int end = s.indexOf(']', i);
        if (end < 0) {
          throw new IllegalArgumentException("unclosed [ in " + expression);
        }
        String inner = s.substring(i + 1, end).trim();
        if (inner.startsWith("?(")) {
          // filters may contain ']' only inside quotes; the printer-column ones do not
          steps.add(filter(inner, expression));
        } else if (inner.equals("*")) {
          steps.add(new All());
        } else if (inner.startsWith("'") || inner.startsWith("\"")) {
          steps.add(new Field(inner.substring(1, inner.length() - 1)));
        } else {
          steps.add(new Index(Integer.parseInt(inner)));
        }
        i = end + 1;
      } else {
        throw new IllegalArgumentException("unsupported JSONPath " + expression);
      }
    }
    return new SimpleJsonPath(List.copyOf(steps));
  }

  private static Filter filter(String inner, String expression) {
    String body = inner.substring(2, inner.length() - 1).trim();
    int eq = body.indexOf("==");
    if (!body.startsWith("@.") || eq < 0) {
      throw new IllegalArgumentException("unsupported JSONPath filter in " + expression);
    }
    String value = body.substring(eq + 2).trim();
    if (value.startsWith("\"") || value.startsWith("'")) {
      value = value.substring(1, value.length() - 1);
    }
    return new Filter(List.of(body.substring(2, eq).trim().split("\\.")), value);
  }

  /** All values the path selects (empty when nothing matches). */
  List<JsonNode> find(JsonNode root) {
    List<JsonNode> current = List.of(root);
    for (Step step : steps) {
      List<JsonNode> next = new ArrayList<>();
      for (JsonNode n : current) {
        if (step instanceof Field f) {
          JsonNode v = n.get(f.name());
          if (v != null && !v.isNull()) {
            next.add(v);
          }
        } else if (step instanceof Index ix) {
          int idx = ix.index() < 0 ? n.size() + ix.index() : ix.index();
          if (n.isArray() && idx >= 0 && idx < n.size()) {
            next.add(n.get(idx));
          }
        } else if (step instanceof All) {
          n.forEach(next::add);
        } else if (step instanceof Filter f) {
          for (JsonNode e : n) {
            JsonNode v = e;
            for (String p : f.path()) {
              v = v.path(p);
            }
            if (v.isValueNode() && v.asText().equals(f.value())) {
              next.add(e);
            }
          }
        }
      }
      current = next;
    }
    return current;
  }
}
