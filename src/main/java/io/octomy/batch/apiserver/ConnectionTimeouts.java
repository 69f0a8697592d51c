package io.octomy.batch.apiserver;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes connections that hold a file descriptor without using it: one that has not sent its first
 * request's headers within the header timeout (slow or absent headers), and one with no request
 * under way for the idle timeout. A connection serving a request, a watch included, is never idle,
 * however quiet the watch.
 */
final class ConnectionTimeouts implements AutoCloseable {

  private static final class State {
    volatile long since = System.nanoTime();
    volatile boolean sawRequest;
    int active;
  }

  private final Vertx vertx;
  private final ServerLimits limits;
  private final Map<HttpConnection, State> open = new ConcurrentHashMap<>();
  private final long timer;

  ConnectionTimeouts(Vertx vertx, ServerLimits limits) {
    this.vertx = vertx;
    this.limits = limits;
    long period =
        Math.max(
            100, Math.min(limits.headerTimeout().toMillis(), limits.idleTimeout().toMillis()) / 4);
    this.timer = vertx.setPeriodic(period, id -> sweep());
  }

  /** A new connection: it must send headers in time. */
  void opened(HttpConnection connection) {
    open.put(connection, new State());
    connection.closeHandler(v -> open.remove(connection));
  }

  /** A request's headers arrived on the connection. */
  void started(HttpConnection connection) {
    State s = open.get(connection);
    if (s != null) {
      synchronized (s) {
        s.sawRequest = true;
        s.active++;
      }
    }
  }

  /** A request's response ended (or its client went away). */
  void finished(HttpConnection connection) {
    State s = open.get(connection);
    if (s != null) {
      synchronized (s) {
        s.active = Math.max(0, s.active - 1);
        s.since = System.nanoTime();
      }
    }
  }

  int openConnections() {
    return open.size();
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Map.Entry<HttpConnection, State> e : open.entrySet()) {
      State s = e.getValue();
      synchronized (s) {
        if (s.active > 0) {
          continue;
        }
        long limit =
            s.sawRequest ? limits.idleTimeout().toNanos() : limits.headerTimeout().toNanos();
        if (now - s.since > limit) {
          open.remove(e.getKey());
          e.getKey().close();
        }
      }
    }
  }

  @Override
  public void close() {
    vertx.cancelTimer(timer);
  }
}
