package io.octomy.batch.controller.aggregated;

import io.octomy.batch.controller.visibility.VisibilityApi;
import io.octomy.batch.tls.SelfSignedCertificate;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The visibility API as an aggregated API server: HTTPS (Vert.x, as the embedded API server) with
 * the serving certificate the APIService trusts, a client certificate requested and verified
 * against the request-header CA only, {@link DelegatedAuthentication} and {@link ListPermissions}
 * in front of the same {@link VisibilityApi} standalone mode serves.
 *
 * <p>The same server answers {@link ReservationFinalizerWebhook}'s admission reviews.
 *
 * <p>Failure handling: a request without credentials gets 401; a caller who may not list BatchJobs
 * where they ask gets 403; more than {@link #MAX_QUEUED} requests waiting get 429 with {@code
 * Retry-After}; a body over {@link #MAX_BODY_BYTES} gets 413 and the connection is closed; a review
 * the API server does not answer gets 503 (the aggregator passes it on, and the client may retry);
 * a replica that does not decide answers 503 from {@link VisibilityApi} itself.
 */
public final class VisibilityHttpsServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(VisibilityHttpsServer.class);

  /** The API server's own limit on a request body. */
  static final int MAX_BODY_BYTES = 3 * 1024 * 1024;

  private static final int WORKERS = 4;

  /** Requests waiting for a worker; one more gets 429. */
  static final int MAX_QUEUED = 64;

  private static final String PREFIX = "/apis/" + VisibilityApi.GROUP_VERSION;
  private static final String JSON = "application/json";

  private final Vertx vertx;
  private final VisibilityApi api;
  private final DelegatedAuthentication authentication;
  private final ListPermissions permissions;
  private final ExecutorService workers;
  private HttpServer server;

  public VisibilityHttpsServer(
      Vertx vertx,
      VisibilityApi api,
      DelegatedAuthentication authentication,
      ListPermissions permissions) {
    this.vertx = vertx;
    this.api = api;
    this.authentication = authentication;
    this.permissions = permissions;
    AtomicInteger n = new AtomicInteger();
    // A bounded queue: past it, 429 with Retry-After rather than unbounded waiting.
    this.workers =
        new ThreadPoolExecutor(
            WORKERS,
            WORKERS,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED),
            r -> {
              Thread t = new Thread(r, "octomy-visibility-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Listens on {@code host:port} (0: a free port) and returns the bound port.
   *
   * @param clientCaPem the only CA whose client certificates are accepted (the request-header CA)
   */
  public int start(String host, int port, SelfSignedCertificate serving, String clientCaPem) {
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(host)
            .setPort(port)
            .setSsl(true)
            .setUseAlpn(false)
            .setCompressionSupported(false)
            .setKeyCertOptions(
                new PemKeyCertOptions()
                    .setCertValue(Buffer.buffer(serving.certificatePem()))
                    .setKeyValue(Buffer.buffer(serving.privateKeyPem())))
            .setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(clientCaPem)))
            .setClientAuth(ClientAuth.REQUEST);
    server = vertx.createHttpServer(options).requestHandler(this::onRequest);
    CompletableFuture<HttpServer> bound = server.listen().toCompletionStage().toCompletableFuture();
    try {
      return bound.get(30, TimeUnit.SECONDS).actualPort();
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot listen on " + host + ":" + port + " for the visibility API: " + e.getMessage(),
          e);
    }
  }

  private void onRequest(HttpServerRequest req) {
    if (declaredLength(req) > MAX_BODY_BYTES) {
      tooLarge(req);
      return;
    }
    Buffer body = Buffer.buffer();
    req.handler(
        chunk -> {
          if (body.length() + chunk.length() > MAX_BODY_BYTES) {
            tooLarge(req);
          } else if (!req.response().ended()) {
            body.appendBuffer(chunk);
          }
        });
    req.endHandler(
        v -> {
          if (req.response().ended()) {
            return;
          }
          if (req.path().equals(ReservationFinalizerWebhook.PATH)) {
            // Answered here, not behind visibility calls that wait on the API server's reviews: a
            // create waits for this answer. It only reads the body and builds a small patch.
            send(req, webhook(req, body.getBytes()));
            return;
          }
          try {
            workers.execute(() -> respond(req, body.getBytes()));
          } catch (RejectedExecutionException e) {
            req.response().putHeader("Retry-After", "1");
            send(
                req,
                api.failure(429, "TooManyRequests", "Too many requests, please try again later."));
          }
        });
  }

  private void respond(HttpServerRequest req, byte[] body) {
    try {
      send(req, answer(req, body));
    } catch (RuntimeException e) {
      // The API server did not answer a review, or a bug: say so, and keep serving.
      LOG.warn("{} {} failed", req.method(), req.path(), e);
      send(req, api.failure(503, "ServiceUnavailable", String.valueOf(e.getMessage())));
    }
  }

  private static long declaredLength(HttpServerRequest req) {
    String length = req.getHeader("Content-Length");
    try {
      return length == null ? 0 : Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * The API server calls admission webhooks without credentials; the review only computes a patch
   * of the object it carries, so there is nothing to protect.
   */
  private VisibilityApi.Answer webhook(HttpServerRequest req, byte[] body) {
    return req.method() == HttpMethod.POST
        ? ReservationFinalizerWebhook.review(body)
        : api.failure(405, "MethodNotAllowed", "POST an AdmissionReview to this path");
  }

  private VisibilityApi.Answer answer(HttpServerRequest req, byte[] body) {
    DelegatedAuthentication.AuthenticationOutcome who =
        authentication.authenticate(
            clientCertificate(req), headers(req), req.getHeader("Authorization"));
    if (who instanceof DelegatedAuthentication.AuthenticationOutcome.Refused refused) {
      LOG.debug("401 for {} {}: {}", req.method(), req.path(), refused.message());
      return api.failure(401, "Unauthorized", "Unauthorized: " + refused.message());
    }
    Caller caller = ((DelegatedAuthentication.AuthenticationOutcome.Known) who).caller();
    String path = req.path();
    if (path.equals("/apis") || path.equals("/apis/")) {
      return api.groupDiscovery(true);
    }
    if (path.equals("/apis/" + VisibilityApi.GROUP)
        || path.equals("/apis/" + VisibilityApi.GROUP + "/")) {
      return api.groupDiscovery(false);
    }
    if (!path.equals(PREFIX) && !path.startsWith(PREFIX + "/")) {
      return api.failure(404, "NotFound", "the server could not find the requested resource");
    }
    Map<String, String> query = new HashMap<>();
    req.params().forEach(e -> query.putIfAbsent(e.getKey(), e.getValue()));
    return api.handle(
        new VisibilityApi.Call(
            req.method().name(),
            path.substring(PREFIX.length()),
            query,
            req.getHeader("Accept"),
            body),
        permissions.of(caller));
  }

  /** The client certificate the handshake verified, or null when none was sent. */
  private static X509Certificate clientCertificate(HttpServerRequest req) {
    try {
      List<Certificate> chain = req.connection().peerCertificates();
      return chain == null || chain.isEmpty() ? null : (X509Certificate) chain.get(0);
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  private static DelegatedAuthentication.Headers headers(HttpServerRequest req) {
    return new DelegatedAuthentication.Headers() {
      @Override
      public List<String> values(String name) {
        return req.headers().getAll(name);
      }

      @Override
      public Iterable<Map.Entry<String, String>> entries() {
        return req.headers();
      }
    };
  }

  private void tooLarge(HttpServerRequest req) {
    if (!req.response().ended()) {
      req.response().putHeader("Connection", "close");
      send(
          req,
          api.failure(
              413,
              "RequestEntityTooLarge",
              "the request body is larger than " + MAX_BODY_BYTES + " bytes"));
      req.connection().close();
    }
  }

  private static void send(HttpServerRequest req, VisibilityApi.Answer answer) {
    if (req.response().ended()) {
      return;
    }
    req.response()
        .setStatusCode(answer.status())
        .putHeader("Content-Type", answer.contentType() == null ? JSON : answer.contentType())
        .end(Buffer.buffer(answer.body()));
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
    workers.shutdownNow();
  }
}
