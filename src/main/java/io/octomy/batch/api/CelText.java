package io.octomy.batch.api;

/**
 * Regular expressions written for use inside single-quoted CEL string literals (backslashes
 * doubled).
 */
final class CelText {

  static final String RESOURCE_NAME =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?\\\\.)+[a-z0-9]([-a-z0-9]*[a-z0-9])?/([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$";

  private CelText() {}
}
