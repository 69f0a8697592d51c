package io.octomy.batch.apiserver;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The real server's rules for label keys (qualified names: an optional DNS subdomain prefix and
 * '/', then a name part) and label values, each broken rule as the sentence the real server uses.
 */
final class LabelSyntax {

  private static final String NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
  private static final Pattern NAME = Pattern.compile(NAME_FORMAT);
  private static final Pattern VALUE = Pattern.compile("(" + NAME_FORMAT + ")?");
  private static final String SUBDOMAIN_FORMAT =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
  private static final Pattern SUBDOMAIN = Pattern.compile(SUBDOMAIN_FORMAT);
  private static final String NAME_RULE =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
          + " alphanumeric character";
  private static final String NAME_EXAMPLES = examples(NAME_FORMAT, "MyName", "my.name", "123-abc");

  private LabelSyntax() {}

  /** Nothing when {@code key} is a qualified name, else one sentence per broken rule. */
  static List<String> qualifiedNameErrors(String key) {
    List<String> errors = new ArrayList<>();
    String[] parts = key.split("/", -1);
    if (parts.length > 2) {
      errors.add(
          "a qualified name "
              + NAME_RULE
              + NAME_EXAMPLES
              + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errors;
    }
    String name = parts[parts.length - 1];
    if (parts.length == 2) {
      String prefix = parts[0];
      if (prefix.isEmpty()) {
        errors.add("prefix part must be non-empty");
      } else {
        if (prefix.length() > 253) {
          errors.add("prefix part must be no more than 253 characters");
        }
        if (!SUBDOMAIN.matcher(prefix).matches()) {
          errors.add(
              "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
                  + " characters, '-' or '.', and must start and end with an alphanumeric"
                  + " character"
                  + examples(SUBDOMAIN_FORMAT, "example.com"));
        }
      }
    }
    if (name.isEmpty()) {
      errors.add("name part must be non-empty");
    } else if (name.length() > 63) {
      errors.add("name part must be no more than 63 characters");
    }
    if (!NAME.matcher(name).matches()) {
      errors.add("name part " + NAME_RULE + NAME_EXAMPLES);
    }
    return errors;
  }

  /** Nothing when {@code value} may be a label's value, else one sentence per broken rule. */
  static List<String> labelValueErrors(String value) {
    List<String> errors = new ArrayList<>();
    if (value.length() > 63) {
      errors.add("must be no more than 63 characters");
    }
    if (!VALUE.matcher(value).matches()) {
      errors.add(
          "a valid label must be an empty string or "
              + NAME_RULE.substring("must ".length())
              + examples("(" + NAME_FORMAT + ")?", "MyValue", "my_value", "12345"));
    }
    return errors;
  }

  /** " (e.g. 'a', or 'b', regex used for validation is 'F')", spaced as the real server does. */
  private static String examples(String format, String... examples) {
    StringBuilder s = new StringBuilder(" (e.g. ");
    for (int i = 0; i < examples.length; i++) {
      if (i > 0) {
        s.append(" or ");
      }
      s.append('\'').append(examples[i]).append("', ");
    }
    return s.append("regex used for validation is '").append(format).append("')").toString();
  }
}
