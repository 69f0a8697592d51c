package io.octomy.batch.apiserver;

import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.atomic.AtomicBoolean;

/** A watch as one long chunked HTTP response, one JSON event per chunk. */
final class ChunkedWatchSink implements WatchSink {
  private final HttpServerResponse response;
  private final AtomicBoolean started = new AtomicBoolean();
  private final long bufferBytes;
  private long replayed;
  private volatile boolean bounded;

  ChunkedWatchSink(HttpServerResponse response, long bufferBytes) {
    this.response = response;
    this.bufferBytes = bufferBytes;
  }

  @Override
  public void replayDone() {
    response.setWriteQueueMaxSize((int) Math.min(Integer.MAX_VALUE, replayed + bufferBytes));
    bounded = true;
  }

  private void head() {
    if (started.compareAndSet(false, true)) {
      response.setChunked(true).setStatusCode(200).putHeader("Content-Type", "application/json");
    }
  }

  @Override
  public void send(String event) {
    head();
    if (response.closed() || response.ended()) {
      return;
    }
    if (bounded && response.writeQueueFull()) {
      // a client that does not read: drop its connection rather than buffer without limit; it
      // watches again from the last version it did read
      response.reset();
      return;
    }
    if (!bounded) {
      replayed += event.length();
    }
    response.write(event);
  }

  @Override
  public void end() {
    head();
    if (!response.closed() && !response.ended()) {
      response.end();
    }
  }

  @Override
  public void onClosed(Runnable action) {
    // headers go out now, so the client's watch call returns even before the first event
    head();
    response.write("");
    AtomicBoolean once = new AtomicBoolean();
    Runnable run =
        () -> {
          if (once.compareAndSet(false, true)) {
            action.run();
          }
        };
    response.closeHandler(v -> run.run());
    response.endHandler(v -> run.run());
    if (response.closed()) {
      run.run();
    }
  }
}
