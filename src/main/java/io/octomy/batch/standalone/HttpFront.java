package io.octomy.batch.standalone;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTPS side, on Vert.x (the same engine the fabric8 mock web server runs on, taken from its
 * dependencies): listens on 127.0.0.1 only, with a self-signed certificate, checks the bearer token
 * on every request, runs ordinary requests on a small worker pool (store writes block on SQLite
 * commits), and streams watches either as a chunked HTTP response (kubectl) or over a WebSocket
 * (fabric8 clients).
 *
 * <p>Why not the mock web server's own dispatcher: its responses are complete bodies ({@code
 * MockResponse}), so a watch could not stay open as a chunked response, which is all kubectl
 * speaks.
 */
final class HttpFront implements AutoCloseable {

  private static final String UNAUTHORIZED =
      ApiException.status(401, "Unauthorized", "Unauthorized", null, null, List.of()).toString();

  private final Vertx vertx;
  private final BearerAuth auth;
  private final ApiRouter router;
  private final ExecutorService workers;
  private HttpServer server;

  private final TlsIdentity tls;

  HttpFront(Vertx vertx, BearerAuth auth, TlsIdentity tls, ApiRouter router, int workerThreads) {
    this.tls = tls;
    this.vertx = vertx;
    this.auth = auth;
    this.router = router;
    AtomicInteger n = new AtomicInteger();
    this.workers =
        Executors.newFixedThreadPool(
            workerThreads,
            r -> {
              Thread t = new Thread(r, "octomy-api-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** Binds to 127.0.0.1:{@code port} (0 = any free port) and returns the bound port. */
  int start(int port) {
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost("127.0.0.1")
            .setPort(port)
            .setMaxWebSocketFrameSize(16 * 1024 * 1024)
            .setCompressionSupported(false)
            // HTTP/1.1 only (no ALPN): watches stay plain chunked responses
            .setSsl(true)
            .setUseAlpn(false)
            .setKeyCertOptions(
                new PemKeyCertOptions()
                    .setCertValue(Buffer.buffer(tls.certificatePem()))
                    .setKeyValue(Buffer.buffer(tls.privateKeyPem())));
    server = vertx.createHttpServer(options).requestHandler(this::onRequest);
    try {
      return server
          .listen()
          .toCompletionStage()
          .toCompletableFuture()
          .get(30, TimeUnit.SECONDS)
          .actualPort();
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot listen on 127.0.0.1:" + port + ": " + e.getMessage(), e);
    }
  }

  private void onRequest(HttpServerRequest req) {
    if (!auth.allows(req.getHeader("Authorization"))) {
      req.response()
          .setStatusCode(401)
          .putHeader("Content-Type", "application/json")
          .end(UNAUTHORIZED);
      return;
    }
    ApiRequest head = request(req, new byte[0]);
    if (WatchHandler.isWatch(head)) {
      if ("websocket".equalsIgnoreCase(req.getHeader("Upgrade"))) {
        req.toWebSocket().onSuccess(ws -> startWatch(head, new SocketSink(ws), null));
      } else {
        startWatch(head, new ChunkedSink(req.response()), req.response());
      }
      return;
    }
    req.body()
        .onSuccess(
            body ->
                workers.execute(
                    () -> {
                      ApiResponse answer = router.handle(request(req, body.getBytes()));
                      req.response()
                          .setStatusCode(answer.status())
                          .putHeader("Content-Type", answer.contentType())
                          .end(Buffer.buffer(answer.body()));
                    }))
        .onFailure(e -> req.response().setStatusCode(400).end());
  }

  private void startWatch(ApiRequest head, WatchSink sink, HttpServerResponse http) {
    workers.execute(
        () -> {
          Optional<ApiResponse> refused = router.watch(head, sink);
          if (refused.isPresent() && http != null && !http.headWritten()) {
            http.setChunked(false);
            http.setStatusCode(refused.get().status())
                .putHeader("Content-Type", refused.get().contentType())
                .end(Buffer.buffer(refused.get().body()));
          } else if (refused.isPresent()) {
            sink.send(new String(refused.get().body(), StandardCharsets.UTF_8));
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
        body);
  }

  /** A watch as one long chunked HTTP response, one JSON event per chunk. */
  private static final class ChunkedSink implements WatchSink {
    private final HttpServerResponse response;
    private final AtomicBoolean started = new AtomicBoolean();

    ChunkedSink(HttpServerResponse response) {
      this.response = response;
    }

    private void head() {
      if (started.compareAndSet(false, true)) {
        response.setChunked(true).setStatusCode(200).putHeader("Content-Type", "application/json");
      }
    }

    @Override
    public void send(String event) {
      head();
      if (!response.closed() && !response.ended()) {
        response.write(event);
      }
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

  /** A watch over a WebSocket, one JSON event per text message. */
  private static final class SocketSink implements WatchSink {
    private final ServerWebSocket socket;

    SocketSink(ServerWebSocket socket) {
      this.socket = socket;
    }

    @Override
    public void send(String event) {
      if (!socket.isClosed()) {
        socket.writeTextMessage(event);
      }
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

  @Override
  public void close() {
    if (server != null) {
      CompletableFuture<Void> done = server.close().toCompletionStage().toCompletableFuture();
      try {
        done.get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        // closing anyway
      }
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(10, TimeUnit.SECONDS)) {
        workers.shutdownNow();
      }
    } catch (InterruptedException e) {
      workers.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
