package io.octomy.batch.standalone;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an answer in pieces ({@link AnswerBody.InPieces}) to its connection from the worker that
 * made it, a piece at a time as the connection takes them.
 *
 * <p>Failure handling: the worker writes the next piece once the connection has taken the last, so
 * a slow reader holds its worker, not the answer's bytes. A connection that closes ends the
 * writing; one whose client takes nothing for the connection's idle timeout is closed. A failure
 * while the pieces are made, before any is sent, is answered as any failed request (500, by the
 * caller); after the head is sent (an exception, or an error such as running out of memory) there
 * is no status left to give, so the connection is closed and the client sees a body shorter than
 * its Content-Length, which every client treats as a failed read.
 */
final class PiecewiseAnswer {

  private static final Logger LOG = LoggerFactory.getLogger(PiecewiseAnswer.class);

  /** The connection went away, or took nothing for too long. */
  private static final class ConnectionGone extends RuntimeException {
    ConnectionGone(String why) {
      super(why, null, false, false);
    }
  }

  private PiecewiseAnswer() {}

  /**
   * Writes {@code body} after the status and headers already set on {@code req}'s response.
   *
   * @throws RuntimeException when making the pieces failed before the head was sent (nothing was
   *     written: the caller answers it)
   */
  static void write(HttpServerRequest req, AnswerBody.InPieces body, Duration stallLimit) {
    HttpServerResponse response = req.response();
    response.putHeader("Content-Length", Long.toString(body.length()));
    try {
      // One piece in flight at a time: a write from a worker is queued to the connection's event
      // loop, where the connection's own "queue full" does not see it, so it is the write's
      // completion that says the connection has taken it.
      AtomicReference<Future<Void>> inFlight = new AtomicReference<>(Future.succeededFuture());
      body.writeTo(
          piece -> {
            taken(inFlight.get(), response, stallLimit);
            inFlight.set(response.write(Buffer.buffer(piece)));
          });
      taken(inFlight.get(), response, stallLimit);
      response.end();
    } catch (ConnectionGone e) {
      LOG.info("{} {}: answer not finished: {}", req.method(), req.path(), e.getMessage());
      req.connection().close();
    } catch (RuntimeException | Error e) {
      // an Error too: out of memory while a piece is made is answered, or the connection closed
      if (!response.headWritten()) {
        response.headers().remove("Content-Length"); // the caller's answer has its own length
        throw e;
      }
      LOG.error("{} {}: answer failed after its head was sent", req.method(), req.path(), e);
      req.connection().close();
    }
  }

  /** Waits until the connection has taken {@code write}; gives up when it closes or stalls. */
  private static void taken(Future<Void> write, HttpServerResponse response, Duration stallLimit) {
    CountDownLatch done = new CountDownLatch(1);
    write.onComplete(r -> done.countDown());
    long since = System.nanoTime();
    try {
      while (!done.await(100, TimeUnit.MILLISECONDS)) {
        if (response.closed()) {
          throw new ConnectionGone("the client closed the connection");
        }
        if (System.nanoTime() - since > stallLimit.toNanos()) {
          throw new ConnectionGone("the client took nothing for " + stallLimit.toSeconds() + " s");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionGone("the server is stopping");
    }
    if (write.failed()) {
      throw new ConnectionGone("the connection failed: " + write.cause());
    }
  }
}
