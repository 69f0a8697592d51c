package io.octomy.batch.evidence;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** {@code --name value} pairs with defaults; unknown names fail. */
final class Args {
  private final Map<String, String> values = new HashMap<>();

  Args(String[] args, Map<String, String> defaults) {
    values.putAll(defaults);
    for (int i = 0; i < args.length; i += 2) {
      String k = args[i].replaceFirst("^--", "");
      if (!defaults.containsKey(k) || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "unknown or incomplete option " + args[i] + "; known: " + defaults);
      }
      values.put(k, args[i + 1]);
    }
  }

  int integer(String k) {
    return Integer.parseInt(values.get(k));
  }

  String string(String k) {
    return values.get(k);
  }

  @Override
  public String toString() {
    return new TreeMap<>(values).toString();
  }
}
