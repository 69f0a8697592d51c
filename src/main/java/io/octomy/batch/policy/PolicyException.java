package io.octomy.batch.policy;

import io.octomy.batch.vocabulary.CannotStart;

/** A policy file that cannot be used; the message names the file, the line and the field. */
public class PolicyException extends CannotStart {
  public PolicyException(String message, Throwable cause) {
    super(message, cause);
  }
}
