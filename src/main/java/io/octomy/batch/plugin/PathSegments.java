package io.octomy.batch.plugin;

import io.octomy.batch.vocabulary.ResourceNames;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The names the plugin puts in a request's path: a namespace and a BatchJob's name, each checked to
 * be a name the API can hold (so a typo gets a sentence here, not a request elsewhere) and
 * percent-encoded as a path segment, so that no character of it can change the path or its query.
 */
final class PathSegments {

  private static final Pattern SUBDOMAIN = Pattern.compile(ResourceNames.DNS_SUBDOMAIN_REGEX);
  private static final Pattern LABEL = Pattern.compile(ResourceNames.DNS_LABEL_REGEX);

  private PathSegments() {}

  /** A BatchJob's name as a path segment, or a sentence saying what a name is. */
  static String job(String name) {
    if (name.length() > 253 || !SUBDOMAIN.matcher(name).matches()) {
      throw new PluginException(
          "error: "
              + quoted(name)
              + " is not a BatchJob name: a name is at most 253 lowercase letters, digits, '-' and"
              + " '.', starting and ending with a letter or digit (kubectl get bj lists them)"
              + options(name)
              + ".");
    }
    return encode(name);
  }

  /** A namespace as a path segment, or a sentence saying what a namespace is. */
  static String namespace(String name) {
    if (name.length() > 63 || !LABEL.matcher(name).matches()) {
      throw new PluginException(
          "error: "
              + quoted(name)
              + " is not a namespace: a namespace is at most 63 lowercase letters, digits and '-',"
              + " starting and ending with a letter or digit (kubectl get namespaces lists them).");
    }
    return encode(name);
  }

  /**
   * Every byte outside RFC 3986's unreserved characters as %XX: a name that passed the checks above
   * is unchanged, and any other text stays one segment.
   */
  static String encode(String segment) {
    StringBuilder out = new StringBuilder();
    for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        out.append(c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)));
        out.append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return out.toString();
  }

  /** What a name with a query in it meant to ask, said as the flags that ask it. */
  private static String options(String name) {
    return name.contains("?") || name.contains("&")
        ? "; options are flags, not part of the name (logs takes --tail N and --limit-bytes N)"
        : "";
  }

  /** In double quotes, a control character in it written as \\xNN so that it shows. */
  private static String quoted(String s) {
    StringBuilder out = new StringBuilder("\"");
    s.codePoints()
        .forEach(
            c -> {
              if (c == '"' || c == '\\') {
                out.append('\\').appendCodePoint(c);
              } else if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02x", c));
              } else {
                out.appendCodePoint(c);
              }
            });
    return out.append('"').toString();
  }
}
