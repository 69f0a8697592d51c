package io.octomy.batch.vocabulary;

/**
 * Why a command cannot start, in a sentence that says what to change (a bad policy file, a port or
 * state directory another process holds). The command line prints the sentence alone: it is the
 * user's to fix, and a stack trace would bury it. Anything else that stops a command is a fault of
 * the program and keeps its stack trace.
 */
public class CannotStart extends RuntimeException {

  public CannotStart(String message, Throwable cause) {
    super(message, cause);
  }
}
