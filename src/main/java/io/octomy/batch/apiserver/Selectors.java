package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Label selectors of list, watch and delete-collection requests ({@code app=x,tier!=db}, {@code
 * tier in (a,b)}, {@code !tier}, {@code size>3}), read with the real server's grammar: a lexer of
 * identifiers and the symbols {@code = == != ! ( ) , > <} and the keywords {@code in} and {@code
 * notin}, then one requirement after another. An expression the real server refuses is refused with
 * its message, word for word, so that a user learns the same syntax on both.
 */
final class Selectors {

  private enum Token {
    ERROR,
    END,
    CLOSE,
    COMMA,
    NOT,
    DOUBLE_EQUALS,
    EQUALS,
    GREATER,
    IDENTIFIER,
    IN,
    LESS,
    NOT_EQUALS,
    NOT_IN,
    OPEN
  }

  private record Scanned(Token token, String literal) {}

  private static final Map<String, Token> SYMBOLS =
      Map.ofEntries(
          Map.entry(")", Token.CLOSE),
          Map.entry(",", Token.COMMA),
          Map.entry("!", Token.NOT),
          Map.entry("==", Token.DOUBLE_EQUALS),
          Map.entry("=", Token.EQUALS),
          Map.entry(">", Token.GREATER),
          Map.entry("in", Token.IN),
          Map.entry("<", Token.LESS),
          Map.entry("!=", Token.NOT_EQUALS),
          Map.entry("notin", Token.NOT_IN),
          Map.entry("(", Token.OPEN));

  private final List<Scanned> items;
  private int position;

  private Selectors(String expression) {
    this.items = scan(expression);
  }

  /**
   * Matches every object when the expression is null or blank.
   *
   * @throws ApiException 400 with the real server's message for an expression it cannot parse
   */
  static Predicate<JsonNode> labels(String expression) {
    if (expression == null || expression.isBlank()) {
      return o -> true;
    }
    try {
      return new Selectors(expression).parse();
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(e.getMessage());
    }
  }

  private Predicate<JsonNode> parse() {
    Predicate<JsonNode> all = o -> true;
    while (true) {
      Scanned next = lookahead(true);
      switch (next.token()) {
        case IDENTIFIER, NOT -> {
          Predicate<JsonNode> requirement;
          try {
            requirement = requirement();
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unable to parse requirement: " + e.getMessage());
          }
          all = all.and(requirement);
          Scanned after = consume(true);
          if (after.token() == Token.END) {
            return all;
          }
          if (after.token() != Token.COMMA) {
            throw fail(after.literal(), "',' or 'end of string'");
          }
          Scanned following = lookahead(true);
          if (following.token() != Token.IDENTIFIER && following.token() != Token.NOT) {
            throw fail(following.literal(), "identifier after ','");
          }
        }
        case END -> {
          return all;
        }
        default -> throw fail(next.literal(), "!, identifier, or 'end of string'");
      }
    }
  }

  private Predicate<JsonNode> requirement() {
    Scanned first = consume(true);
    boolean absent = first.token() == Token.NOT;
    Scanned key = absent ? consume(true) : first;
    if (key.token() != Token.IDENTIFIER) {
      throw fail(key.literal(), "identifier");
    }
    String k = key.literal();
    List<String> keyErrors = LabelSyntax.qualifiedNameErrors(k);
    if (!keyErrors.isEmpty()) {
      throw new IllegalArgumentException(invalid("<nil>", k, String.join("; ", keyErrors)));
    }
    Token following = lookahead(true).token();
    if (absent || following == Token.END || following == Token.COMMA) {
      return absent ? o -> label(o, k) == null : o -> label(o, k) != null;
    }
    Scanned op = consume(false);
    List<String> values;
    switch (op.token()) {
      case IN, NOT_IN -> values = valueSet();
      case EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER, LESS -> values = exactValue();
      default -> throw fail(op.literal(), "in, notin, =, ==, !=, gt, lt");
    }
    List<String> errors = new ArrayList<>();
    if ((op.token() == Token.GREATER || op.token() == Token.LESS)) {
      for (int i = 0; i < values.size(); i++) {
        if (!isInteger(values.get(i))) {
          errors.add(
              invalid(
                  "values[" + i + "]",
                  values.get(i),
                  "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
    }
    for (int i = 0; i < values.size(); i++) {
      List<String> valueErrors = LabelSyntax.labelValueErrors(values.get(i));
      if (!valueErrors.isEmpty()) {
        errors.add(
            invalid("values[" + i + "][" + k + "]", values.get(i), String.join("; ", valueErrors)));
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
    }
    return switch (op.token()) {
      case IN, EQUALS, DOUBLE_EQUALS -> o -> label(o, k) != null && values.contains(label(o, k));
      case NOT_IN, NOT_EQUALS -> o -> label(o, k) == null || !values.contains(label(o, k));
      default -> {
        long bound = Long.parseLong(values.get(0));
        boolean greater = op.token() == Token.GREATER;
        yield o -> {
          String v = label(o, k);
          return v != null
              && isInteger(v)
              && (greater ? Long.parseLong(v) > bound : Long.parseLong(v) < bound);
        };
      }
    };
  }

  /** {@code (a,b,c)}: the sorted set, with "" for empty places as the real parser reads them. */
  private List<String> valueSet() {
    Scanned open = consume(true);
    if (open.token() != Token.OPEN) {
      throw new IllegalArgumentException("found '" + open.literal() + "' expected: '('");
    }
    Scanned next = lookahead(true);
    TreeSet<String> set = new TreeSet<>();
    switch (next.token()) {
      case IDENTIFIER, COMMA -> {
        identifiers(set);
        if (consume(true).token() != Token.CLOSE) {
          throw fail(next.literal(), "')'");
        }
      }
      case CLOSE -> {
        consume(true);
        set.add("");
      }
      default -> throw fail(next.literal(), "',', ')' or identifier");
    }
    return List.copyOf(set);
  }

  private void identifiers(TreeSet<String> set) {
    while (true) {
      Scanned s = consume(true);
      switch (s.token()) {
        case IDENTIFIER -> {
          set.add(s.literal());
          Scanned after = lookahead(true);
          if (after.token() == Token.CLOSE) {
            return;
          }
          if (after.token() != Token.COMMA) {
            throw fail(after.literal(), "',' or ')'");
          }
        }
        case COMMA -> {
          if (set.isEmpty()) {
            set.add("");
          }
          Token after = lookahead(true).token();
          if (after == Token.CLOSE) {
            set.add("");
            return;
          }
          if (after == Token.COMMA) {
            consume(true);
            set.add("");
          }
        }
        default -> throw fail(s.literal(), "',', or identifier");
      }
    }
  }

  private List<String> exactValue() {
    Token next = lookahead(true).token();
    if (next == Token.END || next == Token.COMMA) {
      return List.of("");
    }
    Scanned value = consume(true);
    if (value.token() != Token.IDENTIFIER) {
      throw fail(value.literal(), "identifier");
    }
    return List.of(value.literal());
  }

  /** The next item; where values are read, the keywords in and notin are plain identifiers. */
  private Scanned lookahead(boolean values) {
    return asValue(items.get(position), values);
  }

  private Scanned consume(boolean values) {
    return asValue(items.get(position++), values);
  }

  private static Scanned asValue(Scanned s, boolean values) {
    return values && (s.token() == Token.IN || s.token() == Token.NOT_IN)
        ? new Scanned(Token.IDENTIFIER, s.literal())
        : s;
  }

  private static IllegalArgumentException fail(String found, String expected) {
    return new IllegalArgumentException("found '" + found + "', expected: " + expected);
  }

  private static String invalid(String field, String value, String detail) {
    return field + ": Invalid value: \"" + value + "\": " + detail;
  }

  private static boolean isInteger(String s) {
    try {
      Long.parseLong(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String label(JsonNode o, String key) {
    JsonNode v = o.path("metadata").path("labels").get(key);
    return v == null ? null : v.asText();
  }

  // ---- the lexer

  private static List<Scanned> scan(String s) {
    List<Scanned> out = new ArrayList<>();
    int[] pos = {0};
    while (true) {
      Scanned item = lex(s, pos);
      out.add(item);
      if (item.token() == Token.END) {
        return out;
      }
    }
  }

  private static Scanned lex(String s, int[] pos) {
    while (pos[0] < s.length() && isWhitespace(s.charAt(pos[0]))) {
      pos[0]++;
    }
    if (pos[0] >= s.length()) {
      return new Scanned(Token.END, "");
    }
    return isSpecial(s.charAt(pos[0])) ? symbol(s, pos) : word(s, pos);
  }

  private static Scanned word(String s, int[] pos) {
    int start = pos[0];
    while (pos[0] < s.length() && !isSpecial(s.charAt(pos[0])) && !isWhitespace(s.charAt(pos[0]))) {
      pos[0]++;
    }
    String w = s.substring(start, pos[0]);
    Token keyword = SYMBOLS.get(w);
    return new Scanned(keyword != null ? keyword : Token.IDENTIFIER, w);
  }

  /** The longest run of symbol characters that is a token, read as the real lexer reads it. */
  private static Scanned symbol(String s, int[] pos) {
    StringBuilder buffer = new StringBuilder();
    Scanned last = null;
    while (pos[0] < s.length() && isSpecial(s.charAt(pos[0]))) {
      buffer.append(s.charAt(pos[0]++));
      Token t = SYMBOLS.get(buffer.toString());
      if (t != null) {
        last = new Scanned(t, buffer.toString());
      } else if (last != null) {
        pos[0]--;
        break;
      }
    }
    return last != null
        ? last
        : new Scanned(Token.ERROR, "error expected: keyword found '" + buffer + "'");
  }

  private static boolean isWhitespace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  private static boolean isSpecial(char c) {
    return "=!(),><".indexOf(c) >= 0;
  }
}
