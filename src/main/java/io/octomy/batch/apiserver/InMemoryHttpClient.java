package io.octomy.batch.apiserver;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.StandardHttpClient;
import io.fabric8.kubernetes.client.http.StandardHttpClientBuilder;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import io.fabric8.kubernetes.client.http.StandardWebSocketBuilder;
import io.fabric8.kubernetes.client.http.WebSocket;
import io.fabric8.kubernetes.client.http.WebSocketHandshakeException;
import io.fabric8.kubernetes.client.http.WebSocketResponse;
import io.fabric8.kubernetes.client.http.WebSocketUpgradeResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The fabric8 HTTP client of this process's controller and agent in standalone mode: each request
 * goes to the embedded server's router as an {@link ApiRequest} and its answer comes back as bytes,
 * with no socket, no HTTP framing and no HTTP client between them; a watch is a WebSocket whose
 * messages are the watch's event lines ({@link InMemoryWatchSocket}).
 *
 * <p>Why: the controller and the agent sit in the server's process, and on two processors the JDK's
 * HTTP client and the server's HTTP side of their requests were about a fifth of the server's
 * processor time in a drain of tiny jobs. What the server does with a request is unchanged: the
 * same router, the same worker pool ahead of users' requests ({@link HttpFront#serveInProcess}),
 * the same watch handling; fabric8 above it is unchanged too (its interceptors, retries and
 * deserialization).
 *
 * <p>Failure handling: an answer is handed back on this client's own threads ({@code handOff}),
 * never on the server's worker, so no client work (parsing the answer, an informer's handlers)
 * holds a worker. A request that the router fails on is answered 500, as over HTTP. A closed client
 * refuses new requests at once; so does a server that is stopping. The server's close does not end
 * the watches of clients still open: close the clients first ({@link StandaloneRuntime#close}).
 */
final class InMemoryHttpClient
    extends StandardHttpClient<
        InMemoryHttpClient, InMemoryHttpClient.Factory, InMemoryHttpClient.Builder> {

  private final Factory factory;

  private InMemoryHttpClient(Builder builder, AtomicBoolean closed) {
    super(builder, closed);
    this.factory = builder.getClientFactory();
  }

  @Override
  public CompletableFuture<HttpResponse<AsyncBody>> consumeBytesDirect(
      StandardHttpRequest request, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    if (isClosed()) {
      // Not an IOException: fabric8 retries those, and a closed client stays closed.
      return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
    }
    return factory
        .front
        .serveInProcess(toApiRequest(request))
        .thenApplyAsync(answer -> answered(request, answer, consumer), factory.handOff);
  }

  @Override
  public CompletableFuture<WebSocketResponse> buildWebSocketDirect(
      StandardWebSocketBuilder builder, WebSocket.Listener listener) {
    StandardHttpRequest request = builder.asHttpRequest();
    ApiRequest head = toApiRequest(request);
    if (isClosed() || !WatchHandler.isWatch(head)) {
      // Only watches are served over a WebSocket here (no exec, attach or port-forward).
      WebSocketUpgradeResponse refused = new WebSocketUpgradeResponse(request, 400);
      return CompletableFuture.completedFuture(
          new WebSocketResponse(refused, new WebSocketHandshakeException(refused)));
    }
    InMemoryWatchSocket socket =
        new InMemoryWatchSocket(listener, factory.handOff, factory.front.watchBufferBytes());
    socket.open();
    factory.front.watchInProcess(head, socket);
    return CompletableFuture.completedFuture(
        new WebSocketResponse(new WebSocketUpgradeResponse(request), socket));
  }

  @Override
  protected void doClose() {
    // Nothing is held per client: the factory's threads serve every client of the process.
  }

  /** The request as the HTTP side would have read it: raw path, decoded query, three headers. */
  private static ApiRequest toApiRequest(StandardHttpRequest request) {
    URI uri = request.uri();
    Map<String, String> query = new HashMap<>();
    String rawQuery = uri.getRawQuery();
    if (rawQuery != null && !rawQuery.isEmpty()) {
      for (String pair : rawQuery.split("&")) {
        int eq = pair.indexOf('=');
        String name = decode(eq < 0 ? pair : pair.substring(0, eq));
        String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
        query.putIfAbsent(name, value); // the first value of each, as the HTTP side reads it
      }
    }
    String contentType = request.getContentType();
    if (contentType == null) {
      contentType = request.header("Content-Type");
    }
    return new ApiRequest(
        request.method(),
        uri.getRawPath(),
        Map.copyOf(query),
        Objects.requireNonNullElse(request.header("Accept"), ""),
        Objects.requireNonNullElse(contentType, ""),
        body(request.body()),
        Objects.requireNonNullElse(request.header("User-Agent"), ""));
  }

  private static String decode(String part) {
    return URLDecoder.decode(part, StandardCharsets.UTF_8);
  }

  private static byte[] body(StandardHttpRequest.BodyContent content) {
    if (content instanceof StandardHttpRequest.StringBodyContent text) {
      return text.getContent().getBytes(StandardCharsets.UTF_8);
    }
    if (content instanceof StandardHttpRequest.ByteArrayBodyContent bytes) {
      return bytes.getContent();
    }
    if (content instanceof StandardHttpRequest.InputStreamBodyContent stream) {
      try (var in = stream.getContent()) {
        return in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException("reading a request body", e);
      }
    }
    return new byte[0];
  }

  private static HttpResponse<AsyncBody> answered(
      StandardHttpRequest request,
      ApiResponse answer,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of(answer.contentType()));
    byte[] body = answer.bytes(); // whole: HttpFront.serveInProcess builds a list on its worker
    headers.put("Content-Length", List.of(Integer.toString(body.length)));
    if (!answer.warnings().isEmpty()) {
      headers.put("Warning", answer.warnings().stream().map(ApiResponse::warningHeader).toList());
    }
    return new WholeResponse(answer.status(), headers, request, new WholeBody(body, consumer));
  }

  /** An answer received whole: its body is one chunk, handed over at the first {@link #consume}. */
  private static final class WholeBody implements AsyncBody {
    private final byte[] bytes;
    private final AsyncBody.Consumer<List<ByteBuffer>> consumer;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final AtomicBoolean handedOver = new AtomicBoolean();

    WholeBody(byte[] bytes, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
      this.bytes = bytes;
      this.consumer = consumer;
    }

    @Override
    public void consume() {
      // The consumer asks for more from inside consume: the flag makes that call a no-op.
      if (done.isDone() || !handedOver.compareAndSet(false, true)) {
        return;
      }
      try {
        if (bytes.length > 0) {
          consumer.consume(List.of(ByteBuffer.wrap(bytes)), this);
        }
        done.complete(null);
      } catch (Exception e) {
        done.completeExceptionally(e);
      }
    }

    @Override
    public CompletableFuture<Void> done() {
      return done;
    }

    @Override
    public void cancel() {
      done.cancel(false);
    }
  }

  private record WholeResponse(
      int code, Map<String, List<String>> headers, HttpRequest request, AsyncBody body)
      implements HttpResponse<AsyncBody> {

    @Override
    public List<String> headers(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) {
          return e.getValue();
        }
      }
      return List.of();
    }

    @Override
    public Optional<HttpResponse<?>> previousResponse() {
      return Optional.empty();
    }
  }

  /**
   * Makes the clients of one embedded server; its threads hand answers and watch events to fabric8
   * (daemon threads, made as needed and ended when idle).
   */
  static final class Factory implements HttpClient.Factory {
    private final HttpFront front;
    private final Executor handOff;

    Factory(HttpFront front, Executor handOff) {
      this.front = front;
      this.handOff = handOff;
    }

    @Override
    public Builder newBuilder() {
      return new Builder(this);
    }
  }

  /** fabric8's builder; TLS, proxy and timeout settings have nothing to act on here. */
  static final class Builder
      extends StandardHttpClientBuilder<InMemoryHttpClient, Factory, Builder> {

    Builder(Factory factory) {
      super(factory);
    }

    @Override
    protected Builder newInstance(Factory factory) {
      return new Builder(factory);
    }

    @Override
    public InMemoryHttpClient build() {
      // A client derived from another (fabric8 does so for watches and uploads) shares its closing.
      return new InMemoryHttpClient(
          this, client != null ? client.getClosed() : new AtomicBoolean());
    }
  }
}
