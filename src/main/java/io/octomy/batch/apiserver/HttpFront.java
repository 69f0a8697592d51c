package io.octomy.batch.apiserver;

import io.octomy.batch.apiserver.BearerAuth.Credential;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.PemKeyCertOptions;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS side, on Vert.x (the same engine the fabric8 mock web server runs on, taken from its
 * dependencies): listens on 127.0.0.1 only, with a self-signed certificate, checks the bearer token
 * on every request, runs ordinary requests on a small worker pool (store writes block on SQLite
 * commits) that serves this process's controller and agent first ({@link RequestWorkers}), and
 * streams watches either as a chunked HTTP response (kubectl, {@link ChunkedWatchSink}) or over a
 * WebSocket (fabric8 clients, {@link WebSocketWatchSink}).
 *
 * <p>This process's own controller and agent do not come over HTTP: their requests reach {@link
 * #serveInProcess} and {@link #watchInProcess} directly ({@link InMemoryHttpClient}), with no
 * socket, no TLS and no HTTP framing. A request over HTTPS that carries the in-process credential
 * (an embedding program's own client, {@link EmbeddedApiServer#clientConfig}) is served as theirs
 * are.
 *
 * <p>Why not the mock web server's own dispatcher: its responses are complete bodies ({@code
 * MockResponse}), so a watch could not stay open as a chunked response, which is all kubectl
 * speaks.
 */
final class HttpFront implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpFront.class);

  private static final String UNAUTHORIZED =
      ApiException.status(401, "Unauthorized", "Unauthorized", null, null, List.of()).toString();
  private static final String TOO_MANY =
      ApiException.status(
              429,
              "TooManyRequests",
              "Too many requests, please try again later.",
              null,
              null,
              List.of())
          .toString();

  /** How many times the body limit a refused request may still send before it is cut off. */
  private static final int DRAIN_LIMIT_FACTOR = 8;

  private final Vertx vertx;
  private final BearerAuth auth;
  private final ApiRouter router;
  private final RequestWorkers workers;
  private final ServerLimits limits;
  private final ConnectionTimeouts timeouts;
  private final AtomicInteger readOnlyInFlight = new AtomicInteger();
  private final AtomicInteger mutatingInFlight = new AtomicInteger();
  private final AtomicInteger inProcessInFlight = new AtomicInteger();
  private HttpServer server;

  private final TlsIdentity tls;

  /** Makes the later pieces of answers written in pieces ({@link PiecewiseAnswer}). */
  private final ExecutorService answerPump;

  private final AtomicInteger answerThreads = new AtomicInteger();

  /** Connections past it are closed as they are accepted, before their TLS handshake. */
  private final ConnectionCap cap = new ConnectionCap(ConnectionCap.forThisProcess());

  HttpFront(
      Vertx vertx,
      BearerAuth auth,
      TlsIdentity tls,
      ApiRouter router,
      int workerThreads,
      ServerLimits limits) {
    this.tls = tls;
    this.limits = limits;
    this.timeouts = new ConnectionTimeouts(vertx, limits);
    this.vertx = vertx;
    this.auth = auth;
    this.router = router;
    this.workers = new RequestWorkers(workerThreads);
    this.answerPump =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "octomy-answer-" + answerThreads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** Binds to 127.0.0.1:{@code port} (0 = any free port) and returns the bound port. */
  int start(int port) {
    HttpServerOptions options =
        loopback(port)
            .setSslHandshakeTimeout(limits.headerTimeout().toMillis())
            .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
            // HTTP/1.1 only (no ALPN): watches stay plain chunked responses
            .setSsl(true)
            .setUseAlpn(false)
            .setKeyCertOptions(
                new PemKeyCertOptions()
                    .setCertValue(Buffer.buffer(tls.certificatePem()))
                    .setKeyValue(Buffer.buffer(tls.privateKeyPem())));
    server =
        vertx
            .createHttpServer(options)
            .connectionHandler(timeouts::opened)
            .requestHandler(this::onRequest);
    int bound = bound(server, "127.0.0.1:" + port);
    cap.install(server);
    return bound;
  }

  /** 127.0.0.1 only, and the request limits. */
  private HttpServerOptions loopback(int port) {
    return new HttpServerOptions()
        .setHost("127.0.0.1")
        .setPort(port)
        .setMaxWebSocketFrameSize(16 * 1024 * 1024)
        .setCompressionSupported(false)
        .setMaxHeaderSize(limits.maxHeaderBytes())
        .setMaxInitialLineLength(64 * 1024);
  }

  private static int bound(HttpServer listener, String where) {
    try {
      return listener
          .listen()
          .toCompletionStage()
          .toCompletableFuture()
          .get(30, TimeUnit.SECONDS)
          .actualPort();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof BindException
          || (cause != null && String.valueOf(cause.getMessage()).contains("already in use"))) {
        // another process has the port: the user's to change, not a fault of this one
        throw new ServerCannotStart(
            "cannot listen on "
                + where
                + ": "
                + cause.getMessage()
                + "; choose another port, or 0 for any free one",
            e);
      }
      throw new IllegalStateException("cannot listen on " + where + ": " + e.getMessage(), e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot listen on " + where + ": " + e.getMessage(), e);
    }
  }

  private void onRequest(HttpServerRequest req) {
    timeouts.started(req.connection());
    req.response().endHandler(v -> timeouts.finished(req.connection()));
    req.response().closeHandler(v -> timeouts.finished(req.connection()));
    Optional<Credential> credential = auth.credential(req.getHeader("Authorization"));
    if (credential.isEmpty()) {
      req.response()
          .setStatusCode(401)
          .putHeader("Content-Type", "application/json")
          .end(UNAUTHORIZED);
      return;
    }
    Credential caller = credential.get();
    ApiRequest head = request(req, new byte[0]);
    if (WatchHandler.isWatch(head)) {
      if ("websocket".equalsIgnoreCase(req.getHeader("Upgrade"))) {
        req.toWebSocket()
            .onSuccess(
                ws ->
                    startWatch(
                        caller, head, new WebSocketWatchSink(ws, limits.watchBufferBytes()), null));
      } else {
        startWatch(
            caller,
            head,
            new ChunkedWatchSink(req.response(), limits.watchBufferBytes()),
            req.response());
      }
      return;
    }
    // The in-flight limits are the users' (kube-apiserver's max-requests-inflight): this process's
    // controller and agent send a bounded number of requests, and a flood of users' requests must
    // not refuse them the writes that let jobs start and end.
    boolean mutating = !req.method().name().equals("GET") && !req.method().name().equals("HEAD");
    AtomicInteger inFlight =
        caller == Credential.IN_PROCESS
            ? inProcessInFlight
            : mutating ? mutatingInFlight : readOnlyInFlight;
    int max =
        caller == Credential.IN_PROCESS
            ? Integer.MAX_VALUE
            : mutating ? limits.maxMutatingInFlight() : limits.maxReadOnlyInFlight();
    if (inFlight.incrementAndGet() > max) {
      inFlight.decrementAndGet();
      req.response()
          .setStatusCode(429)
          .putHeader("Retry-After", "1")
          .putHeader("Content-Type", "application/json")
          .end(TOO_MANY);
      return;
    }
    AtomicBoolean released = new AtomicBoolean();
    Runnable release =
        () -> {
          if (released.compareAndSet(false, true)) {
            inFlight.decrementAndGet();
          }
        };
    req.response().closeHandler(v -> release.run());
    readBody(
        req,
        body ->
            workers.execute(
                caller,
                () -> {
                  try {
                    answer(req, router.handle(request(req, body)));
                  } catch (Throwable e) {
                    // out of memory or a bug: answer it, and keep the worker alive
                    LOG.error("{} {} failed", req.method(), req.path(), e);
                    answer(req, internalError(e));
                  } finally {
                    release.run();
                  }
                }),
        release);
  }

  /**
   * Serves a request of this process's controller or agent that came without HTTP ({@link
   * InMemoryHttpClient}): as a request with the in-process credential, on a worker ahead of users'
   * requests, without their in-flight limits. The answer completes on the worker, which the caller
   * must leave at once (it hands the answer to a thread of its own).
   */
  CompletableFuture<ApiResponse> serveInProcess(ApiRequest request) {
    CompletableFuture<ApiResponse> answer = new CompletableFuture<>();
    if (request.body().length > limits.maxBodyBytes()) {
      answer.complete(tooLargeAnswer());
      return answer;
    }
    try {
      workers.execute(
          Credential.IN_PROCESS,
          () -> {
            try {
              answer.complete(whole(router.handle(request)));
            } catch (Throwable e) {
              LOG.error("{} {} failed", request.method(), request.path(), e);
              answer.complete(internalError(e));
            }
          });
    } catch (RejectedExecutionException e) {
      answer.completeExceptionally(new IllegalStateException("the server is stopping", e));
    }
    return answer;
  }

  /**
   * Starts a watch of this process's controller or agent that came without HTTP; on a server that
   * is stopping, the watch ends at once, as its connection would.
   */
  void watchInProcess(ApiRequest head, WatchSink sink) {
    try {
      startWatch(Credential.IN_PROCESS, head, sink, null);
    } catch (RejectedExecutionException e) {
      sink.end();
    }
  }

  /** Bytes a watch may hold for a client that does not read ({@link WatchSink#replayDone}). */
  long watchBufferBytes() {
    return limits.watchBufferBytes();
  }

  /**
   * Reads a body of at most {@code maxBodyBytes}. A larger one (by its Content-Length or as it
   * arrives) is never held in memory: the rest of it is read and dropped, and the 413 is sent once
   * the client has finished sending, then the connection is closed. Answering and closing while the
   * client is still writing would reset the connection, and a client that reads its answer only
   * after sending (the JDK's, for one) would see a broken connection instead of the 413. A client
   * that sends more than {@link #DRAIN_LIMIT_FACTOR} times the limit is cut off at once.
   */
  private void readBody(HttpServerRequest req, Consumer<byte[]> then, Runnable release) {
    String length = req.getHeader("Content-Length");
    long declared;
    try {
      declared = length == null ? -1 : Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      declared = Long.MAX_VALUE;
    }
    long drainLimit = (long) limits.maxBodyBytes() * DRAIN_LIMIT_FACTOR;
    if (declared > drainLimit) {
      tooLarge(req, release);
      return;
    }
    Buffer body = Buffer.buffer();
    AtomicBoolean refused = new AtomicBoolean(declared > limits.maxBodyBytes());
    AtomicLong received = new AtomicLong();
    req.handler(
        chunk -> {
          long total = received.addAndGet(chunk.length());
          if (total > drainLimit) {
            tooLarge(req, release);
          } else if (total > limits.maxBodyBytes()) {
            refused.set(true);
          } else if (!refused.get()) {
            body.appendBuffer(chunk);
          }
        });
    req.exceptionHandler(e -> release.run());
    req.endHandler(
        v -> {
          if (refused.get()) {
            tooLarge(req, release);
          } else {
            then.accept(body.getBytes());
          }
        });
  }

  private void tooLarge(HttpServerRequest req, Runnable release) {
    release.run();
    if (req.response().ended() || req.response().closed()) {
      return;
    }
    ApiResponse answer = tooLargeAnswer();
    req.response()
        .setStatusCode(answer.status())
        .putHeader("Content-Type", answer.contentType())
        .putHeader("Connection", "close")
        .end(Buffer.buffer(answer.bytes()))
        .onComplete(v -> req.connection().close());
  }

  private ApiResponse tooLargeAnswer() {
    return ApiResponse.json(
        413,
        ApiException.status(
                413,
                "RequestEntityTooLarge",
                "Request entity too large: limit is " + limits.maxBodyBytes(),
                null,
                null,
                List.of())
            .toString());
  }

  private void answer(HttpServerRequest req, ApiResponse answer) {
    if (req.response().ended() || req.response().closed() || req.response().headWritten()) {
      return;
    }
    for (String warning : answer.warnings()) {
      req.response().headers().add("Warning", ApiResponse.warningHeader(warning));
    }
    req.response().setStatusCode(answer.status()).putHeader("Content-Type", answer.contentType());
    if (answer.body() instanceof AnswerBody.InPieces pieces) {
      PiecewiseAnswer.write(vertx, answerPump, req, pieces, limits.idleTimeout());
    } else {
      req.response().end(Buffer.buffer(answer.bytes()));
    }
  }

  /**
   * An in-process client reads an answer whole (fabric8 reads a list into objects anyway): a list
   * is built here, on the worker, so that running out of memory on it is answered as any failure.
   */
  private static ApiResponse whole(ApiResponse answer) {
    return answer.body() instanceof AnswerBody.InPieces
        ? new ApiResponse(
            answer.status(),
            answer.contentType(),
            new AnswerBody.Whole(answer.bytes()),
            answer.warnings())
        : answer;
  }

  private static ApiResponse internalError(Throwable e) {
    return ApiResponse.json(
        500,
        ApiException.status(
                500,
                "InternalError",
                "Internal error occurred: " + e.getClass().getSimpleName(),
                null,
                null,
                List.of())
            .toString());
  }

  private void startWatch(
      Credential caller, ApiRequest head, WatchSink sink, HttpServerResponse http) {
    workers.execute(
        caller,
        () -> {
          Optional<ApiResponse> refused;
          try {
            refused = router.watch(head, sink);
          } catch (Throwable e) {
            LOG.error("watch {} failed", head.path(), e);
            refused = Optional.of(internalError(e));
          }
          if (refused.isPresent() && http != null && !http.headWritten()) {
            http.setChunked(false);
            http.setStatusCode(refused.get().status())
                .putHeader("Content-Type", refused.get().contentType())
                .end(Buffer.buffer(refused.get().bytes()));
          } else if (refused.isPresent()) {
            sink.send(new String(refused.get().bytes(), StandardCharsets.UTF_8));
            sink.end();
          }
        });
  }

  private static ApiRequest request(HttpServerRequest req, byte[] body) {
    Map<String, String> query = new HashMap<>();
    MultiMap params = req.params();
    for (String name : params.names()) {
      query.put(name, params.get(name));
    }
    String accept = req.getHeader("Accept");
    String contentType = req.getHeader("Content-Type");
    return new ApiRequest(
        req.method().name(),
        req.path(),
        Map.copyOf(query),
        accept == null ? "" : accept,
        contentType == null ? "" : contentType,
        body,
        Objects.requireNonNullElse(req.getHeader("User-Agent"), ""));
  }

  @Override
  public void close() {
    timeouts.close();
    closeListener(server);
    workers.close();
    answerPump.shutdownNow();
  }

  private static void closeListener(HttpServer listener) {
    if (listener != null) {
      CompletableFuture<Void> done = listener.close().toCompletionStage().toCompletableFuture();
      try {
        done.get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        // closing anyway
      }
    }
  }
}
