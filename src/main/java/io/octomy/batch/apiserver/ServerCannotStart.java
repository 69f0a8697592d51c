package io.octomy.batch.apiserver;

/**
 * Why the server cannot start, in a sentence that says what to change (a port or a state directory
 * another process holds). It is the user's to fix, not a fault of the program, so whoever starts
 * the server can show the sentence alone.
 */
public class ServerCannotStart extends RuntimeException {

  public ServerCannotStart(String message, Throwable cause) {
    super(message, cause);
  }
}
