package io.octomy.batch.plugin;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * A watch passed on to the page as the API server sends it, each event as soon as it arrives, so
 * the timeline shows a decision without waiting for its next poll. A watch is bounded: the API
 * server is asked to end it after at most {@value #MAX_SECONDS} seconds (the page watches again),
 * so no worker of the server is held for longer.
 */
final class WatchStream {

  static final int MAX_SECONDS = 300;
  private static final Pattern WATCH = Pattern.compile("(^|.*&)watch=(true|1)(&.*|$)");
  private static final Pattern TIMEOUT = Pattern.compile("(^|&)timeoutSeconds=([^&]*)");

  private WatchStream() {}

  static boolean isWatch(String query) {
    return query != null && WATCH.matcher(query).matches();
  }

  /** The query with {@code timeoutSeconds} at most {@value #MAX_SECONDS}. */
  static String bounded(String query) {
    long asked = MAX_SECONDS;
    var m = TIMEOUT.matcher(query);
    if (m.find()) {
      try {
        asked = Math.min(MAX_SECONDS, Math.max(1, Long.parseLong(m.group(2))));
      } catch (NumberFormatException e) {
        asked = MAX_SECONDS;
      }
    }
    String rest = TIMEOUT.matcher(query).replaceAll("").replaceAll("^&+", "");
    return (rest.isEmpty() ? "" : rest + "&") + "timeoutSeconds=" + asked;
  }

  static void forward(
      HttpExchange x, HttpClient upstream, HttpRequest.Builder request, ApiForwarder.Bounds bounds)
      throws IOException {
    OutputStream out = x.getResponseBody();
    CompletableFuture<HttpResponse<AsyncBody>> sent =
        upstream.consumeBytes(
            request.build(),
            (List<ByteBuffer> buffers, AsyncBody more) -> {
              try {
                for (ByteBuffer b : buffers) {
                  byte[] chunk = new byte[b.remaining()];
                  b.get(chunk);
                  out.write(chunk);
                }
                out.flush();
                more.consume();
              } catch (IOException gone) {
                // the page went away (a reload, another view): stop reading for it
                more.cancel();
              }
            });
    HttpResponse<AsyncBody> r;
    try {
      r = sent.get(bounds.headers().toMillis() + 500, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      sent.cancel(true);
      UiAnswers.status(
          x,
          504,
          "Timeout",
          "the API server did not start the watch in time: the page reads again at its next poll.");
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      sent.cancel(true);
      return;
    }
    String type = r.header("Content-Type");
    UiAnswers.headers(x, type == null ? "application/json" : type);
    x.sendResponseHeaders(r.code(), 0);
    r.body().consume();
    try {
      r.body().done().get(MAX_SECONDS + 30L, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      r.body().cancel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      r.body().cancel();
    } finally {
      try {
        out.close();
      } catch (IOException gone) {
        // the page already closed its end
      }
    }
  }
}
