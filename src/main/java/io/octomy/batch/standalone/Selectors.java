package io.octomy.batch.standalone;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Label and field selectors of list and watch requests ({@code labelSelector=app=x,tier!=db},
 * {@code fieldSelector=metadata.name=foo}). kubectl uses field selectors for {@code describe}
 * (events of one object) and {@code delete --wait}; informers may use label selectors.
 */
final class Selectors {

  private Selectors() {}

  /** Matches every object when the expression is null or blank. */
  static Predicate<JsonNode> labels(String expression) {
    Predicate<JsonNode> all = o -> true;
    if (expression == null || expression.isBlank()) {
      return all;
    }
    for (String term : splitTerms(expression)) {
      all = all.and(labelTerm(term.trim()));
    }
    return all;
  }

  private static Predicate<JsonNode> labelTerm(String term) {
    String t = term.replaceAll("\\s+", " ");
    int in = t.indexOf(" in ");
    int notin = t.indexOf(" notin ");
    if (notin > 0 || in > 0) {
      boolean negate = notin > 0;
      String key = t.substring(0, negate ? notin : in).trim();
      String list = t.substring(t.indexOf('(') + 1, t.lastIndexOf(')'));
      Set<String> values =
          Set.copyOf(List.of(list.split("\\s*,\\s*")).stream().map(String::trim).toList());
      return o -> {
        JsonNode v = o.path("metadata").path("labels").get(key);
        boolean member = v != null && values.contains(v.asText());
        return negate ? !member : member;
      };
    }
    if (t.contains("!=")) {
      String[] kv = t.split("!=", 2);
      return o -> !kv[1].trim().equals(label(o, kv[0].trim()));
    }
    if (t.contains("=")) {
      String[] kv = t.split("==?", 2);
      return o -> kv[1].trim().equals(label(o, kv[0].trim()));
    }
    if (t.startsWith("!")) {
      String key = t.substring(1).trim();
      return o -> label(o, key) == null;
    }
    return o -> label(o, t) != null;
  }

  private static String label(JsonNode o, String key) {
    JsonNode v = o.path("metadata").path("labels").get(key);
    return v == null ? null : v.asText();
  }

  /**
   * Field selector with {@code =}, {@code ==} and {@code !=} on dotted paths; a missing field reads
   * as "".
   */
  static Predicate<JsonNode> fields(String expression) {
    Predicate<JsonNode> all = o -> true;
    if (expression == null || expression.isBlank()) {
      return all;
    }
    for (String term : splitTerms(expression)) {
      boolean negate = term.contains("!=");
      String[] kv = negate ? term.split("!=", 2) : term.split("==?", 2);
      if (kv.length != 2) {
        throw ApiException.badRequest("invalid field selector: " + expression);
      }
      String[] path = kv[0].trim().split("\\.");
      String value = kv[1].trim();
      all = all.and(o -> negate != value.equals(field(o, path)));
    }
    return all;
  }

  private static String field(JsonNode o, String[] path) {
    JsonNode n = o;
    for (String p : path) {
      n = n.path(p);
    }
    return n.isValueNode() ? n.asText() : "";
  }

  /** Splits on commas outside parentheses ({@code a in (x,y),b=c}). */
  private static List<String> splitTerms(String expression) {
    List<String> terms = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < expression.length(); i++) {
      char c = expression.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        terms.add(expression.substring(start, i));
        start = i + 1;
      }
    }
    terms.add(expression.substring(start));
    terms.removeIf(String::isBlank);
    return terms;
  }
}
