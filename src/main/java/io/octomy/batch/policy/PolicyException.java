package io.octomy.batch.policy;

/** A policy file that cannot be used; the message names the file, the line and the field. */
public class PolicyException extends RuntimeException {
  public PolicyException(String message, Throwable cause) {
    super(message, cause);
  }
}
