package io.octomy.batch.vocabulary;

import java.util.regex.Pattern;

/**
 * The one definition of a valid resource name, shared by the CRD's CEL rules and the Java validator
 * so the two can never disagree: a DNS subdomain with at least one dot, a slash, and a name of at
 * most 63 characters (like {@code example.com/cfd-cores}).
 */
public final class ResourceNames {

  /** RE2- and java.util.regex-compatible; used verbatim inside the CRD's CEL rules. */
  public static final String REGEX =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?\\.)+[a-z0-9]([-a-z0-9]*[a-z0-9])?/([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$";

  /** A domain (253) plus a slash plus a name (63). */
  public static final int MAX_LENGTH = 317;

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

  private ResourceNames() {}

  public static boolean isValid(String name) {
    return name != null && name.length() <= MAX_LENGTH && PATTERN.matcher(name).matches();
  }
}
