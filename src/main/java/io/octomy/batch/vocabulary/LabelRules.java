package io.octomy.batch.vocabulary;

import java.util.regex.Pattern;

/**
 * Kubernetes label keys and values, as a nodeSelector names them: a key is an optional DNS
 * subdomain prefix and a slash, then a name of at most 63 letters, digits, '-', '_' and '.' that
 * starts and ends with a letter or digit; a value is such a name or empty. The expressions are
 * written without backslashes, so the same text works in java.util.regex and inside a CEL string.
 */
public final class LabelRules {

  public static final int MAX_PREFIX_LENGTH = 253;
  public static final int MAX_NAME_LENGTH = 63;
  public static final int MAX_KEY_LENGTH = MAX_PREFIX_LENGTH + 1 + MAX_NAME_LENGTH;

  /** How many pairs one nodeSelector may hold. */
  public static final int MAX_SELECTOR_PAIRS = 32;

  public static final String KEY_REGEX =
      "^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?([.][a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  public static final String VALUE_REGEX = "^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$";

  /** Both rules in CEL, over a map {@code self}; the prefix length is checked apart. */
  public static final String CEL_SELECTOR =
      "self.all(k, size(k) <= "
          + MAX_KEY_LENGTH
          + " && k.indexOf('/') <= "
          + MAX_PREFIX_LENGTH
          + " && k.matches('"
          + KEY_REGEX
          + "') && size(self[k]) <= "
          + MAX_NAME_LENGTH
          + " && self[k].matches('"
          + VALUE_REGEX
          + "'))";

  private static final Pattern KEY = Pattern.compile(KEY_REGEX);
  private static final Pattern VALUE = Pattern.compile(VALUE_REGEX);

  private LabelRules() {}

  public static boolean isValidKey(String key) {
    return key != null
        && key.length() <= MAX_KEY_LENGTH
        && key.indexOf('/') <= MAX_PREFIX_LENGTH
        && KEY.matcher(key).matches();
  }

  public static boolean isValidValue(String value) {
    return value != null && value.length() <= MAX_NAME_LENGTH && VALUE.matcher(value).matches();
  }
}
