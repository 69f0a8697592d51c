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
   * DNS-1123 label: object names in {@code after}, job types and groups, and each dot-separated
   * part of a resource name's domain (whose length is checked apart).
   */
  public static final String DNS_LABEL_REGEX = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  /** Names longer than this are shortened in messages, to this many less three, and "...". */
  private static final int SHOWN = 80;

  /** {@link #isValid} in CEL, of k (and below, of j), cheapest check first. */
  private static final String CEL_VALID_K =
      "size(k) <= "
          + MAX_LENGTH
          + " && k.indexOf('/') <= "
          + MAX_PREFIX_LENGTH
          + " && k.matches('"
          + REGEX
          + "')";

  private static final String CEL_VALID_J =
      "size(j) <= "
          + MAX_LENGTH
          + " && j.indexOf('/') <= "
          + MAX_PREFIX_LENGTH
          + " && j.matches('"
          + REGEX
          + "')";

  /**
   * The decimal digits of the number m (below ten million: no API server takes a request with a
   * longer name), D being the list of the ten digits. Not {@code string(m)}: Kubernetes' cost
   * estimator takes its length for unbounded, and a message joining it to other text is then too
   * costly to install.
   */
  private static final String CEL_DIGITS_OF_M =
      "(m >= 1000000 ? D[m / 1000000 % 10] : '') + (m >= 100000 ? D[m / 100000 % 10] : '')"
          + " + (m >= 10000 ? D[m / 10000 % 10] : '') + (m >= 1000 ? D[m / 1000 % 10] : '')"
          + " + (m >= 100 ? D[m / 100 % 10] : '') + (m >= 10 ? D[m / 10 % 10] : '') + D[m % 10]";

  // The sentences of problem() in CEL, over the refused name's parts: n[0] the name and n[1] as
  // shown; t[0] its domain, t[1] its name part, t[2] the name as shown; b the domain's refused
  // labels, in order.

  private static final String CEL_NO_DOMAIN =
      "\"resource name '\" + n[1] + \"' has no domain; write it as example.com/\" + n[1]";

  private static final String CEL_TWO_SLASHES =
      "\"resource name '\" + t[2] + \"' has more than one '/'; write one domain, a slash and a"
          + " name, like example.com/cfd-cores\"";

  private static final String CEL_LONG_DOMAIN =
      "\"the domain of resource name '\" + t[2] + \"' is \" + [size(t[0])].map(m, "
          + CEL_DIGITS_OF_M
          + ")[0] + \" characters long; a domain has at most "
          + MAX_PREFIX_LENGTH
          + "\"";

  private static final String CEL_SHOWN_DOMAIN =
      "(size(t[0]) <= " + SHOWN + " ? t[0] : t[0].substring(0, " + (SHOWN - 3) + ") + '...')";

  private static final String CEL_NO_DOT =
      "\"the domain '\" + "
          + CEL_SHOWN_DOMAIN
          + " + \"' of resource name '\" + t[2] + \"' has no dot; write a DNS domain like"
          + " example.com\"";

  private static final String CEL_LONG_LABEL =
      "\"the domain of resource name '\" + t[2] + \"' has a label of \" + [size(b[0])].map(m, "
          + CEL_DIGITS_OF_M
          + ")[0] + \" characters; each dot-separated part of a domain has at most "
          + MAX_LABEL_LENGTH
          + "\"";

  private static final String CEL_BAD_LABEL =
      "\"the domain '\" + "
          + CEL_SHOWN_DOMAIN
          + " + \"' of resource name '\" + t[2] + \"' is not a DNS domain; use lower-case letters,"
          + " digits and '-' between dots, like example.com\"";

  private static final String CEL_LONG_PART =
      "\"the name part of resource name '\" + t[2] + \"' is \" + [size(t[1])].map(m, "
          + CEL_DIGITS_OF_M
          + ")[0] + \" characters long; at most "
          + MAX_NAME_LENGTH
          + " are allowed after the '/'\"";

  private static final String CEL_BAD_PART =
      "\"the name part '\" + (size(t[1]) <= "
          + SHOWN
          + " ? t[1] : t[1].substring(0, "
          + (SHOWN - 3)
          + ") + '...') + \"' of resource name '\" + t[2] + \"' is not valid; write letters,"
          + " digits, '-', '_' and '.', starting and ending with a letter or digit, like"
          + " cfd-cores\"";

  /**
   * The CEL rule for a map keyed by resource names (the CRDs' {@code x-kubernetes-validations}):
   * the same checks as {@link #isValid}, cheapest first.
   */
  public static final String CEL_EVERY_KEY = "self.all(k, " + CEL_VALID_K + ")";

  /**
   * The CEL message of {@link #CEL_EVERY_KEY}: {@link #problem} of the least refused name, in the
   * same words, so that a server that runs the rule refuses a name as the Java validator does where
   * none runs it; the least, so that a map with several refused names gets the same message on
   * every server (a real one walks a map in no set order). Each let-binding is a one-element list
   * mapped over ({@code [x].map(v, ...)[0]}): Kubernetes' CEL has no {@code cel.bind}.
   */
  public static final String CEL_EVERY_KEY_MESSAGE =
      "[['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']].map(D, self.filter(k, !("
          + CEL_VALID_K
          + ") && self.all(j, k <= j || "
          + CEL_VALID_J
          + ")).map(k, [[k, size(k) <= "
          + SHOWN
          + " ? k : k.substring(0, "
          + (SHOWN - 3)
          + ") + '...']].map(n, !n[0].contains('/') ? "
          + CEL_NO_DOMAIN
          + " : [[n[0].substring(0, n[0].indexOf('/')), n[0].substring(n[0].indexOf('/') + 1),"
          + " n[1]]].map(t, t[1].contains('/') ? "
          + CEL_TWO_SLASHES
          + " : size(t[0]) > "
          + MAX_PREFIX_LENGTH
          + " ? "
          + CEL_LONG_DOMAIN
          + " : !t[0].contains('.') ? "
          + CEL_NO_DOT
          + " : [t[0].split('.').filter(l, size(l) > "
          + MAX_LABEL_LENGTH
          + " || !l.matches('"
          + DNS_LABEL_REGEX
          + "'))].map(b, size(b) > 0 && size(b[0]) > "
          + MAX_LABEL_LENGTH
          + " ? "
          + CEL_LONG_LABEL
          + " : size(b) > 0 ? "
          + CEL_BAD_LABEL
          + " : size(t[1]) > "
          + MAX_NAME_LENGTH
          + " ? "
          + CEL_LONG_PART
          + " : "
          + CEL_BAD_PART
          + ")[0])[0])[0])[0])[0]";

  /** How many resource names one map may hold. */
  public static final int MAX_PER_MAP = 32;

  /** DNS-1123 subdomain: BatchJob and BatchNode names. */
  public static final String DNS_SUBDOMAIN_REGEX =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  /** A lock key: one or more path segments of letters, digits, '-', '_' and '.', joined by '/'. */
  public static final String LOCK_KEY_REGEX =
      "^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?(/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)*$";

  private static final Pattern PATTERN = Pattern.compile(REGEX);
  private static final Pattern LABEL = Pattern.compile(DNS_LABEL_REGEX);

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
    return s.length() <= SHOWN ? s : s.substring(0, SHOWN - 3) + "...";
  }
}
