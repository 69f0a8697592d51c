package io.octomy.batch.standalone;

import com.fasterxml.jackson.databind.JsonNode;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Label and field selectors of list and watch requests ({@code labelSelector=app=x,tier!=db},
 * {@code fieldSelector=metadata.name=foo}). kubectl uses field selectors for {@code describe}
 * (events of one object) and {@code delete --wait}; informers may use label selectors.
 */
final class Selectors {

  private Selectors() {}

  private static final Pattern LABEL_TERM =
      Pattern.compile(
          "\\s*(!?)\\s*([^\\s=!(),]+)\\s*(?:(==|=|!=)\\s*([^\\s=!(),]*)"
              + "|\\s+(in|notin)\\s*\\(([^()]*)\\))?\\s*");
  private static final Pattern KEY_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern PREFIX = Pattern.compile(ResourceNames.DNS_SUBDOMAIN_REGEX);

  /**
   * Matches every object when the expression is null or blank.
   *
   * @throws ApiException 400 for an expression a real server cannot parse either
   */
  static Predicate<JsonNode> labels(String expression) {
    Predicate<JsonNode> all = o -> true;
    if (expression == null || expression.isBlank()) {
      return all;
    }
    for (String term : splitTerms(expression)) {
      all = all.and(labelTerm(term));
    }
    return all;
  }

  private static ApiException unparsable(String term, String why) {
    return ApiException.badRequest("unable to parse requirement: " + term.trim() + ": " + why);
  }

  private static Predicate<JsonNode> labelTerm(String term) {
    Matcher m = LABEL_TERM.matcher(term);
    if (!m.matches()) {
      throw unparsable(
          term, "expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)");
    }
    boolean not = !m.group(1).isEmpty();
    String key = checkKey(term, m.group(2));
    String op = m.group(3) != null ? m.group(3) : m.group(5);
    if (not && op != null) {
      throw unparsable(term, "'!' is followed by a key only");
    }
    if (op == null) {
      return not ? o -> label(o, key) == null : o -> label(o, key) != null;
    }
    if (op.equals("in") || op.equals("notin")) {
      Set<String> values = new HashSet<>();
      for (String v : m.group(6).split(",", -1)) {
        values.add(checkValue(term, v.trim()));
      }
      boolean negate = op.equals("notin");
      return o -> negate != values.contains(label(o, key));
    }
    String value = checkValue(term, m.group(4));
    return op.equals("!=") ? o -> !value.equals(label(o, key)) : o -> value.equals(label(o, key));
  }

  private static String checkKey(String term, String key) {
    int slash = key.lastIndexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0 && !PREFIX.matcher(key.substring(0, slash)).matches()) {
      throw unparsable(term, "the key's prefix must be a DNS subdomain");
    }
    if (name.length() > 63 || !KEY_PART.matcher(name).matches()) {
      throw unparsable(term, "the key must be a qualified name of at most 63 characters");
    }
    return key;
  }

  private static String checkValue(String term, String value) {
    if (value.length() > 63 || !(value.isEmpty() || KEY_PART.matcher(value).matches())) {
      throw unparsable(term, "a label value has at most 63 characters of [-A-Za-z0-9_.]");
    }
    return value;
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
      if (kv.length != 2 || kv[0].isBlank() || kv[1].contains("=")) {
        throw ApiException.badRequest(
            "invalid selector: '" + expression + "'; can't understand '" + term + "'");
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
        if (depth < 0) {
          throw unparsable(expression, "unbalanced ')'");
        }
      } else if (c == ',' && depth == 0) {
        terms.add(expression.substring(start, i));
        start = i + 1;
      }
    }
    if (depth != 0) {
      throw unparsable(expression, "unbalanced '('");
    }
    terms.add(expression.substring(start));
    terms.removeIf(String::isBlank);
    return terms;
  }
}
