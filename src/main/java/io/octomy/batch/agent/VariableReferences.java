package io.octomy.batch.agent;

import java.util.Map;

/**
 * Expands {@code $(NAME)} references in a container's command, args and env values the way the
 * kubelet does, so a template behaves the same on a Process node as on a Pod node: a reference to a
 * defined variable is replaced by its value; a reference to an undefined one is left as written;
 * {@code $$} is a literal {@code $} (so {@code $$(NAME)} gives {@code $(NAME)}); a {@code $(}
 * without its {@code )} is left as written.
 */
final class VariableReferences {

  private VariableReferences() {}

  /** {@code input} with every {@code $(NAME)} whose NAME is in {@code vars} replaced. */
  static String expand(String input, Map<String, String> vars) {
    if (input == null || input.indexOf('$') < 0) {
      return input;
    }
    StringBuilder out = new StringBuilder(input.length());
    int i = 0;
    while (i < input.length()) {
      char c = input.charAt(i);
      if (c != '$' || i + 1 == input.length()) {
        out.append(c);
        i++;
        continue;
      }
      char next = input.charAt(i + 1);
      if (next == '$') {
        out.append('$');
        i += 2;
      } else if (next == '(') {
        int close = input.indexOf(')', i + 2);
        if (close < 0) {
          out.append("$(");
          i += 2;
          continue;
        }
        String name = input.substring(i + 2, close);
        String value = vars.get(name);
        out.append(value != null ? value : "$(" + name + ")");
        i = close + 1;
      } else {
        out.append('$').append(next);
        i += 2;
      }
    }
    return out.toString();
  }
}
