package io.octomy.batch.apiserver;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an answer in pieces ({@link AnswerBody.InPieces}) to its connection, the next piece once
 * the connection has taken the last, so that a list costs the heap about one piece per reader.
 *
 * <p>The worker that made the answer makes and writes its first piece and is free; each later piece
 * is made on {@code pump} when the last one's write completes. A reader that stops reading holds no
 * thread, only its piece. Why the write's completion and not the connection's "queue full": a write
 * from outside the connection's event loop is queued to that loop, where the queue does not see it.
 *
 * <p>Failure handling: a failure before the first piece is written (nothing sent) is thrown, for
 * the caller to answer as any failed request (500); after it there is no status left to give, so
 * the connection is closed and the client sees a body shorter than its Content-Length, which every
 * client treats as a failed read (an exception or an error such as running out of memory alike). A
 * connection that closes ends the writing; one whose client takes nothing of a piece for {@code
 * stallLimit} (the connection's idle timeout) is closed.
 */
final class PiecewiseAnswer {

  private static final Logger LOG = LoggerFactory.getLogger(PiecewiseAnswer.class);

  private final Vertx vertx;
  private final Executor pump;
  private final HttpServerRequest req;
  private final Iterator<byte[]> pieces;
  private final Duration stallLimit;

  private PiecewiseAnswer(
      Vertx vertx,
      Executor pump,
      HttpServerRequest req,
      Iterator<byte[]> pieces,
      Duration stallLimit) {
    this.vertx = vertx;
    this.pump = pump;
    this.req = req;
    this.pieces = pieces;
    this.stallLimit = stallLimit;
  }

  /**
   * Starts writing {@code body} after the status and headers already set on {@code req}'s response;
   * returns once the first piece is handed to the connection.
   *
   * @throws RuntimeException (or an {@link Error}) when making the first piece failed: nothing was
   *     written, and the caller answers it
   */
  static void write(
      Vertx vertx,
      Executor pump,
      HttpServerRequest req,
      AnswerBody.InPieces body,
      Duration stallLimit) {
    HttpServerResponse response = req.response();
    Iterator<byte[]> pieces = body.pieces();
    // a failure making the first piece, or finding it the last, is thrown: nothing sent yet
    byte[] first = pieces.hasNext() ? pieces.next() : new byte[0];
    if (!pieces.hasNext()) {
      response.end(Buffer.buffer(first)); // one piece (most lists): sent as a whole answer is
      return;
    }
    response.putHeader("Content-Length", Long.toString(body.length()));
    new PiecewiseAnswer(vertx, pump, req, pieces, stallLimit).send(first);
  }

  /** Writes {@code piece} ({@code null}: the end) and, once it is taken, makes the next. */
  private void send(byte[] piece) {
    HttpServerResponse response = req.response();
    if (piece == null) {
      response.end();
      return;
    }
    long stalled =
        vertx.setTimer(
            stallLimit.toMillis(),
            id -> {
              LOG.info(
                  "{} {}: answer not finished: the client took nothing for {} s",
                  req.method(),
                  req.path(),
                  stallLimit.toSeconds());
              req.connection().close();
            });
    response
        .write(Buffer.buffer(piece))
        .onComplete(
            written -> {
              vertx.cancelTimer(stalled);
              if (written.failed() || response.closed()) {
                LOG.info(
                    "{} {}: answer not finished: the connection closed", req.method(), req.path());
                return;
              }
              try {
                pump.execute(this::next);
              } catch (RejectedExecutionException stopping) {
                req.connection().close();
              }
            });
  }

  private void next() {
    try {
      send(pieces.hasNext() ? pieces.next() : null);
    } catch (RuntimeException | Error e) {
      LOG.error("{} {}: answer failed after its head was sent", req.method(), req.path(), e);
      req.connection().close();
    }
  }
}
