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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;

/**
 * Clients that POST one prepared BatchJob body over and over (with {@code generateName}, so every
 * POST makes a new object), each on its own kept-alive HTTPS connection, as {@code ab -k} does: the
 * server's cost per create with as little client work as possible.
 */
final class RawCreates implements CreateClients {

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

  @Override
  public Round run(String body, String query, int creates, Duration limit)
      throws InterruptedException {
    return run(body, query, (n, t) -> n >= creates || t >= limit.toNanos());
  }

  /** The clients run in this JVM: its processor time is theirs (and the benchmark's). */
  @Override
  public double processorSeconds() {
    return JvmProcessorTime.now().seconds();
  }

  @Override
  public String describe() {
    return clients.size() + " JDK HttpClient clients";
  }

  /**
   * Every client POSTs {@code body} in a loop until {@code stop} says so; {@code query} is added to
   * the URL (e.g. {@code dryRun=All}).
   */
  Round run(String body, String query, StopRule stop) throws InterruptedException {
    AtomicBoolean done = new AtomicBoolean();
    HttpRequest request =
        post(query.isEmpty() ? collection : URI.create(collection + "?" + query), body);
    return onEveryClient(
        (client, tally, t0) -> {
          while (!done.get()) {
            tally.count(created(client, request));
            if (stop.reached(tally.created().sum(), System.nanoTime() - t0)) {
              done.set(true);
            }
          }
        });
  }

  /**
   * The clients POST each of {@code bodies} once, taking the next one as each answer comes, and
   * {@code ackedAt[i]} is set to the {@link System#nanoTime()} at which body {@code i} was answered
   * with a create (left 0 when it was refused or not answered).
   */
  Round postEach(List<String> bodies, long[] ackedAt) throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    return onEveryClient(
        (client, tally, t0) -> {
          for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
            if (tally.count(created(client, post(collection, bodies.get(i))))) {
              ackedAt[i] = System.nanoTime();
            }
          }
        });
  }

  /** What one client does in a round, counting each create it sends in {@code tally}. */
  private interface ClientLoop {
    void run(HttpClient client, Tally tally, long startNanos) throws InterruptedException;
  }

  /** The creates of one round, made and refused (or unanswered), from every client. */
  private record Tally(LongAdder created, LongAdder failed) {
    /** Counts one create; returns whether it made the object. */
    boolean count(boolean made) {
      (made ? created : failed).increment();
      return made;
    }
  }

  /** Runs {@code loop} on every client at once, each on a thread of its own, until all end. */
  private Round onEveryClient(ClientLoop loop) throws InterruptedException {
    Tally tally = new Tally(new LongAdder(), new LongAdder());
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (HttpClient client : clients) {
      Thread t =
          new Thread(
              () -> {
                try {
                  loop.run(client, tally, t0);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    return new Round(tally.created().sum(), tally.failed().sum(), (System.nanoTime() - t0) / 1e9);
  }

  private HttpRequest post(URI uri, String body) {
    return HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(60))
        .header("Authorization", "Bearer " + token)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  /** Sends one create; true when the server made the object (201, or 200 for a dry run). */
  private boolean created(HttpClient client, HttpRequest request) throws InterruptedException {
    try {
      int code = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
      return code == 201 || code == 200;
    } catch (IOException e) {
      return false;
    }
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
