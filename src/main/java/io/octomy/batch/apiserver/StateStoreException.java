package io.octomy.batch.apiserver;

/** The state database cannot be opened or written; start-up or the request fails with this. */
public final class StateStoreException extends RuntimeException {
  public StateStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
