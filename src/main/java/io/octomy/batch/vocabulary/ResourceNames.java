package io.octomy.batch.vocabulary;

import java.util.regex.Pattern;

/**
 * The one definition of a valid resource name, shared by the CRD's CEL rules and the Java validator
 * so the two can never disagree. It is a Kubernetes qualified name ({@code IsQualifiedName}) whose
 * prefix is required and has a dot: {@code example.com/cfd-cores}, not {@code cfd-cores}.
 *
 * <ul>
 *   <li>the prefix is a DNS-1123 subdomain of at most {@value #MAX_PREFIX_LENGTH} characters, each
 *       of its dot-separated labels at most {@value #MAX_LABEL_LENGTH} (as DNS requires), with at
 *       least one dot;
 *   <li>the name part is at most {@value #MAX_NAME_LENGTH} characters of letters, digits, '-', '_'
 *       and '.', starting and ending with a letter or digit.
 * </ul>
 */
public final class ResourceNames {

  public static final int MAX_PREFIX_LENGTH = 253;
  public static final int MAX_LABEL_LENGTH = 63;
  public static final int MAX_NAME_LENGTH = 63;

  /** A prefix, a slash and a name part. */
  public static final int MAX_LENGTH = MAX_PREFIX_LENGTH + 1 + MAX_NAME_LENGTH;

  /**
   * Labels and name part bounded in the expression itself; the prefix length is checked apart (RE2
   * has no lookahead). Written without backslashes ({@code [.]} for a dot), so the same text works
   * in java.util.regex and verbatim inside a single-quoted CEL string.
   */
  public static final String REGEX =
      "^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?[.])+[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
          + "/([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$";

  /**
   * The CEL rule for a map keyed by resource names (the CRDs' {@code x-kubernetes-validations}):
   * the same checks as {@link #isValid}, cheapest first.
   */
  public static final String CEL_EVERY_KEY =
      "self.all(k, size(k) <= "
          + MAX_LENGTH
          + " && k.indexOf('/') <= "
          + MAX_PREFIX_LENGTH
          + " && k.matches('"
          + REGEX
          + "'))";

  /** How many resource names one map may hold. */
  public static final int MAX_PER_MAP = 32;

  /** DNS-1123 label: object names in {@code after}, and job types and groups. */
  public static final String DNS_LABEL_REGEX = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  /** DNS-1123 subdomain: BatchJob and BatchNode names. */
  public static final String DNS_SUBDOMAIN_REGEX =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  /** A lock key: one or more path segments of letters, digits, '-', '_' and '.', joined by '/'. */
  public static final String LOCK_KEY_REGEX =
      "^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?(/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)*$";

  private static final Pattern PATTERN = Pattern.compile(REGEX);
  private static final Pattern LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");

  private ResourceNames() {}

  public static boolean isValid(String name) {
    return name != null
        && name.length() <= MAX_LENGTH
        && name.indexOf('/') <= MAX_PREFIX_LENGTH
        && PATTERN.matcher(name).matches();
  }

  /**
   * Why a name is not valid, as a sentence part that says what to write instead (no full stop), or
   * null when it is valid. Long names are shortened in the text.
   */
  public static String problem(String name) {
    if (isValid(name)) {
      return null;
    }
    String shown = clip(name);
    int slash = name.indexOf('/');
    if (slash < 0) {
      return "resource name '" + shown + "' has no domain; write it as example.com/" + shown;
    }
    String prefix = name.substring(0, slash);
    String part = name.substring(slash + 1);
    if (part.indexOf('/') >= 0) {
      return "resource name '"
          + shown
          + "' has more than one '/'; write one domain, a slash and a name, like example.com/cfd-cores";
    }
    if (prefix.length() > MAX_PREFIX_LENGTH) {
      return "the domain of resource name '"
          + shown
          + "' is "
          + prefix.length()
          + " characters long; a domain has at most "
          + MAX_PREFIX_LENGTH;
    }
    if (!prefix.contains(".")) {
      return "the domain '"
          + clip(prefix)
          + "' of resource name '"
          + shown
          + "' has no dot; write a DNS domain like example.com";
    }
    for (String label : prefix.split("\\.", -1)) {
      if (label.length() > MAX_LABEL_LENGTH) {
        return "the domain of resource name '"
            + shown
            + "' has a label of "
            + label.length()
            + " characters; each dot-separated part of a domain has at most "
            + MAX_LABEL_LENGTH;
      }
      if (!LABEL.matcher(label).matches()) {
        return "the domain '"
            + clip(prefix)
            + "' of resource name '"
            + shown
            + "' is not a DNS domain; use lower-case letters, digits and '-' between dots, like example.com";
      }
    }
    if (part.length() > MAX_NAME_LENGTH) {
      return "the name part of resource name '"
          + shown
          + "' is "
          + part.length()
          + " characters long; at most "
          + MAX_NAME_LENGTH
          + " are allowed after the '/'";
    }
    return "the name part '"
        + clip(part)
        + "' of resource name '"
        + shown
        + "' is not valid; write letters, digits, '-', '_' and '.', starting and ending with a letter or digit, like cfd-cores";
  }

  private static String clip(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
