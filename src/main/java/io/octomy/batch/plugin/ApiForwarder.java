package io.octomy.batch.plugin;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * The page's way to the API server: a GET on {@code /api/...} or {@code /apis/...} is sent on with
 * the kubeconfig's credentials (held by the fabric8 client, never by the page), so the page sees
 * what RBAC lets this user read, a watch event by event ({@link WatchStream}). Every other method
 * is refused. Only the status, the body and its content type come back; no upstream header does, so
 * no credential or cookie can reach the browser. A slow or huge answer ends in a Status, never a
 * hang.
 */
final class ApiForwarder {

  /**
   * How long the API server has to start its answer ({@code headers}), to send the next part of it
   * ({@code idle}) and to send it all ({@code whole}), and the most of one that is passed on. A
   * large answer sent steadily is not cut however long it takes within {@code whole}; one that
   * stalls is.
   */
  record Bounds(Duration headers, Duration idle, Duration whole, int maxBodyBytes) {
    static final Bounds DEFAULT =
        new Bounds(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofMinutes(5), 32 << 20);
  }

  /** The header the pages send with every API read (see {@code dom.js}). */
  static final String PAGE_HEADER = "X-Octomy-UI";

  /**
   * Subresources whose GET acts on something else (a Service's or Pod's own endpoints, a shell): as
   * {@code kubectl proxy}'s reject-paths, never forwarded.
   */
  private static final Pattern REACHES_THROUGH =
      Pattern.compile("/(proxy|exec|attach|portforward)(/|$)");

  private final HttpClient upstream;
  private final String base;
  private final Bounds bounds;

  ApiForwarder(HttpClient upstream, String base, Bounds bounds) {
    this.upstream = upstream;
    this.base = base;
    this.bounds = bounds;
  }

  static boolean serves(String path) {
    return path.equals("/api")
        || path.equals("/apis")
        || path.startsWith("/api/")
        || path.startsWith("/apis/");
  }

  void handle(HttpExchange x) throws IOException {
    if (!x.getRequestMethod().equals("GET")) {
      x.getResponseHeaders().set("Allow", "GET");
      UiAnswers.status(
          x,
          405,
          "MethodNotAllowed",
          "kubectl octomy ui only reads: "
              + x.getRequestMethod()
              + " is refused; change objects with kubectl (apply, patch, delete).");
      return;
    }
    // Another web site can make the browser send a GET here (a link, an image) but cannot add a
    // header of its own without a preflight, which this server refuses: only the pages send it.
    String site = x.getRequestHeaders().getFirst("Sec-Fetch-Site");
    if (x.getRequestHeaders().getFirst(PAGE_HEADER) == null
        || (site != null && !site.equals("same-origin") && !site.equals("none"))) {
      UiAnswers.status(
          x,
          403,
          "Forbidden",
          "kubectl octomy ui answers only its own pages (they send "
              + PAGE_HEADER
              + "); read the API with kubectl get --raw instead.");
      return;
    }
    String path = x.getRequestURI().getRawPath();
    String query = x.getRequestURI().getRawQuery();
    if (REACHES_THROUGH.matcher(path).find()) {
      UiAnswers.status(
          x,
          403,
          "Forbidden",
          "kubectl octomy ui reads objects, not through them: proxy, exec, attach and portforward"
              + " are refused; use kubectl for those.");
      return;
    }
    if (path.contains("/../") || path.endsWith("/..") || path.contains("/./")) {
      UiAnswers.status(x, 400, "BadRequest", "write the API path without . or .. segments.");
      return;
    }
    String accept = x.getRequestHeaders().getFirst("Accept");
    HttpRequest.Builder request =
        upstream
            .newHttpRequestBuilder()
            .header("Accept", accept == null || accept.length() > 200 ? "application/json" : accept)
            .timeout(bounds.headers().toMillis(), TimeUnit.MILLISECONDS);
    if (WatchStream.isWatch(query)) {
      // a watch is passed on event by event, for at most WatchStream.MAX_SECONDS
      WatchStream.forward(
          x, upstream, request.uri(base + path + "?" + WatchStream.bounded(query)), bounds);
      return;
    }
    forward(x, request.uri(base + path + (query == null ? "" : "?" + query)).build());
  }

  private void forward(HttpExchange x, HttpRequest request) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    boolean[] tooBig = {false};
    long[] lastPart = {System.nanoTime()};
    CompletableFuture<HttpResponse<AsyncBody>> sent =
        upstream.consumeBytes(
            request,
            (List<ByteBuffer> buffers, AsyncBody more) -> {
              synchronized (body) {
                for (ByteBuffer b : buffers) {
                  if (body.size() + b.remaining() > bounds.maxBodyBytes()) {
                    tooBig[0] = true;
                    more.cancel();
                    return;
                  }
                  byte[] chunk = new byte[b.remaining()];
                  b.get(chunk);
                  body.write(chunk);
                }
                lastPart[0] = System.nanoTime();
              }
              more.consume();
            });
    HttpResponse<AsyncBody> r = null;
    Throwable failed = null;
    try {
      r = sent.get(bounds.headers().toMillis() + 500, TimeUnit.MILLISECONDS);
      r.body().consume();
      awaitWhileSent(r.body().done(), body, lastPart);
    } catch (TimeoutException e) {
      cancel(sent, r);
      failed = e;
    } catch (ExecutionException e) {
      failed = e.getCause() == null ? e : e.getCause();
    } catch (CancellationException e) {
      failed = e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel(sent, r);
      return;
    }
    synchronized (body) {
      if (tooBig[0]) {
        UiAnswers.status(
            x,
            502,
            "TooLarge",
            "the API server's answer is over "
                + bounds.maxBodyBytes() / (1024 * 1024)
                + " MiB: ask for one namespace or fewer objects (limit=).");
        return;
      }
    }
    if (timedOut(failed)) {
      UiAnswers.status(
          x,
          504,
          "Timeout",
          "the API server at "
              + base
              + " did not answer in time: try again, or ask for less (one namespace).");
      return;
    }
    if (failed != null) {
      UiAnswers.status(
          x,
          502,
          "BadGateway",
          "cannot reach the API server at "
              + base
              + " ("
              + (failed.getMessage() == null
                  ? failed.getClass().getSimpleName()
                  : failed.getClass().getSimpleName() + ": " + failed.getMessage())
              + "): is it running, and is the kubeconfig's server address right?");
      return;
    }
    String type = r.header("Content-Type");
    byte[] bytes;
    synchronized (body) {
      bytes = body.toByteArray();
    }
    UiAnswers.send(x, r.code(), type == null ? "application/json" : type, bytes);
  }

  /**
   * Waits for the whole body while its parts keep coming: a gap longer than the idle bound, or the
   * whole taking longer than its bound, is a timeout.
   */
  private void awaitWhileSent(CompletableFuture<Void> done, Object lock, long[] lastPart)
      throws TimeoutException, ExecutionException, InterruptedException {
    long deadline = System.nanoTime() + bounds.whole().toNanos();
    long idle = bounds.idle().toNanos();
    for (; ; ) {
      long quietUntil;
      synchronized (lock) {
        quietUntil = lastPart[0] + idle;
      }
      long now = System.nanoTime();
      long wait = Math.min(quietUntil, deadline) - now;
      if (wait <= 0) {
        throw new TimeoutException(
            now >= deadline ? "the whole answer took too long" : "the answer stalled");
      }
      try {
        done.get(wait, TimeUnit.NANOSECONDS);
        return;
      } catch (TimeoutException e) {
        // a part may have come meanwhile: the loop reckons the gap again
      }
    }
  }

  /** The client's own timeouts come wrapped, as the cause of a cause. */
  private static boolean timedOut(Throwable failed) {
    for (Throwable t = failed; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException
          || t instanceof HttpTimeoutException
          || t instanceof SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static void cancel(CompletableFuture<HttpResponse<AsyncBody>> sent, HttpResponse<?> r) {
    sent.cancel(true);
    if (r != null && r.body() instanceof AsyncBody b) {
      b.cancel();
    }
  }
}
