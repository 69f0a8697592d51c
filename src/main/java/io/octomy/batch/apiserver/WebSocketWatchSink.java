package io.octomy.batch.apiserver;

import io.vertx.core.http.ServerWebSocket;
import java.util.concurrent.atomic.AtomicBoolean;

/** A watch over a WebSocket, one JSON event per text message. */
final class WebSocketWatchSink implements WatchSink {
  private final ServerWebSocket socket;
  private final long bufferBytes;
  private long replayed;
  private volatile boolean bounded;

  WebSocketWatchSink(ServerWebSocket socket, long bufferBytes) {
    this.socket = socket;
    this.bufferBytes = bufferBytes;
  }

  @Override
  public void replayDone() {
    socket.setWriteQueueMaxSize((int) Math.min(Integer.MAX_VALUE, replayed + bufferBytes));
    bounded = true;
  }

  @Override
  public void send(String event) {
    if (socket.isClosed()) {
      return;
    }
    if (bounded && socket.writeQueueFull()) {
      end();
      return;
    }
    if (!bounded) {
      replayed += event.length();
    }
    socket.writeTextMessage(event);
  }

  @Override
  public void end() {
    if (!socket.isClosed()) {
      socket.close();
    }
  }

  @Override
  public void onClosed(Runnable action) {
    AtomicBoolean once = new AtomicBoolean();
    socket.closeHandler(
        v -> {
          if (once.compareAndSet(false, true)) {
            action.run();
          }
        });
    if (socket.isClosed() && once.compareAndSet(false, true)) {
      action.run();
    }
  }
}
