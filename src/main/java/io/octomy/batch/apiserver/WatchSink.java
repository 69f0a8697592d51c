package io.octomy.batch.apiserver;

/**
 * Where watch events go: a chunked HTTP response (kubectl) or a WebSocket (fabric8 clients, which
 * try a WebSocket first). Implementations must not block: events are sent while the store holds its
 * write lock, which keeps them in resourceVersion order.
 */
interface WatchSink {

  /** Sends one event line (a JSON object). */
  void send(String event);

  /** Ends the watch from the server side. */
  void end();

  /**
   * The initial or replayed events are sent: from now on, events a client does not read are held
   * only up to a bound, past which the watch ends.
   */
  default void replayDone() {}

  /** Runs {@code action} once when the client goes away or the watch ends. */
  void onClosed(Runnable action);
}
