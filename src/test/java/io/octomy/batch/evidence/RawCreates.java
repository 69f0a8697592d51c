package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;

/**
 * Clients that POST one prepared BatchJob body over and over (with {@code generateName}, so every
 * POST makes a new object), each on its own kept-alive HTTPS connection, as {@code ab -k} does: the
 * server's cost per create with as little client work as possible.
 */
final class RawCreates {

  private final List<HttpClient> clients = new ArrayList<>();
  private final URI collection;
  private final String token;

  RawCreates(Config config, String namespace, int clientCount) throws Exception {
    SSLContext tls = trusting(config.getCaCertData());
    for (int i = 0; i < clientCount; i++) {
      clients.add(
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .sslContext(tls)
              .connectTimeout(Duration.ofSeconds(10))
              .build());
    }
    String base = config.getMasterUrl().replaceAll("/+$", "");
    this.collection =
        URI.create(base + "/apis/batch.octomy.io/v1alpha1/namespaces/" + namespace + "/batchjobs");
    this.token =
        config.getAutoOAuthToken() != null ? config.getAutoOAuthToken() : config.getOauthToken();
  }

  /** What a round of creates did. */
  record Round(long created, long failed, double seconds) {
    double perSecond() {
      return created / seconds;
    }
  }

  /**
   * Every client POSTs {@code body} in a loop until {@code stop} says so; {@code query} is added to
   * the URL (e.g. {@code dryRun=All}).
   */
  Round run(String body, String query, StopRule stop) throws InterruptedException {
    LongAdder created = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicBoolean done = new AtomicBoolean();
    URI uri = query.isEmpty() ? collection : URI.create(collection + "?" + query);
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (HttpClient client : clients) {
      Thread t =
          new Thread(
              () -> {
                while (!done.get()) {
                  try {
                    HttpResponse<Void> r =
                        client.send(request, HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 201 || r.statusCode() == 200) {
                      created.increment();
                    } else {
                      failed.increment();
                    }
                  } catch (IOException e) {
                    failed.increment();
                  } catch (InterruptedException e) {
                    return;
                  }
                  if (stop.reached(created.sum(), System.nanoTime() - t0)) {
                    done.set(true);
                  }
                }
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    return new Round(created.sum(), failed.sum(), (System.nanoTime() - t0) / 1e9);
  }

  /** When a round ends: after so many creates or so much time. */
  interface StopRule {
    boolean reached(long created, long elapsedNanos);

    static StopRule after(long creates) {
      return (n, t) -> n >= creates;
    }

    static StopRule after(Duration d) {
      return (n, t) -> t >= d.toNanos();
    }
  }

  private static SSLContext trusting(String caData) throws Exception {
    return RawHttps.trusting(
        new String(Base64.getDecoder().decode(caData), StandardCharsets.US_ASCII));
  }
}
