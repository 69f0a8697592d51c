package io.octomy.batch.apiserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Shows that single-object requests cost the same at 20,000 objects as at 1,000.
 *
 * <p>Fills the store (in-process, through the same router and SQLite commits), then runs 2 client
 * threads over HTTPS, each looping create → get → merge patch (spec) → status patch → delete on its
 * own objects for a fixed time (so the store stays at the measured size), and prints requests/s at
 * both sizes and their ratio. The JIT needs about 20 s on 2 cores before figures settle, hence four
 * warm-up rounds at 1,000 objects ({@code -Dbench.extraWarmups=N}). Run:
 *
 * <pre>
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) io.octomy.batch.apiserver.StoreScaleBenchmark
 * </pre>
 */
public final class StoreScaleBenchmark {

  private static final int THREADS = 2;
  private static final long WARMUP_MS = 6_000;
  private static final long MEASURE_MS = 6_000;

  private StoreScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("octomy-bench");
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()))) {
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .sslContext(KubectlE2E.trusting(server.certificatePem()))
              .build();
      fill(server, 1_000);
      run(server, http, "warm-up", WARMUP_MS);
      for (int i = 0; i < Integer.getInteger("bench.extraWarmups", 3); i++) {
        System.out.printf(
            "extra warm-up at 1k: %.0f requests/s%n", run(server, http, "warm-up-" + i, WARMUP_MS));
      }
      int atSmall = server.objectCount();
      double small = run(server, http, "at-1k", MEASURE_MS);
      System.out.printf("%,d objects: %.0f requests/s%n", atSmall, small);
      fill(server, 20_000);
      run(server, http, "warm-up-20k", WARMUP_MS);
      int atLarge = server.objectCount();
      double large = run(server, http, "at-20k", MEASURE_MS);
      System.out.printf("%,d objects: %.0f requests/s%n", atLarge, large);
      System.out.printf(
          "ratio (1k / 20k): %.2f (flat = 1.00; the target is at most 1.5)%n", small / large);
    }
  }

  /** Adds objects until the store holds {@code target} samples (plus the few built-in objects). */
  private static void fill(EmbeddedApiServer server, int target) {
    int i = server.objectCount();
    while (server.objectCount() < target) {
      String body =
          "{\"apiVersion\":\"test.octomy.io/v1alpha1\",\"kind\":\"Sample\",\"metadata\":{\"name\":\"fill-"
              + (i++)
              + "\",\"namespace\":\"ns"
              + (i % 20)
              + "\"},\"spec\":{\"size\":3}}";
      ApiResponse r =
          server
              .router()
              .handle(
                  new ApiRequest(
                      "POST",
                      "/apis/test.octomy.io/v1alpha1/namespaces/ns" + (i % 20) + "/samples",
                      Map.of(),
                      "",
                      "application/json",
                      body.getBytes(StandardCharsets.UTF_8)));
      if (r.status() != 201) {
        throw new IllegalStateException(new String(r.bytes(), StandardCharsets.UTF_8));
      }
    }
  }

  /** Runs the 2-thread loop for {@code millis} and returns requests per second. */
  private static double run(EmbeddedApiServer server, HttpClient http, String label, long millis)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    AtomicInteger requests = new AtomicInteger();
    long end = System.nanoTime() + millis * 1_000_000;
    long start = System.nanoTime();
    Future<?>[] workers = new Future<?>[THREADS];
    for (int t = 0; t < THREADS; t++) {
      String prefix = label + "-t" + t + "-";
      workers[t] =
          pool.submit(
              () -> {
                String base =
                    server.url() + "/apis/test.octomy.io/v1alpha1/namespaces/default/samples";
                for (int n = 0; System.nanoTime() < end; n++) {
                  String name = prefix + n;
                  send(
                      http,
                      server,
                      "POST",
                      base,
                      "application/json",
                      "{\"apiVersion\":\"test.octomy.io/v1alpha1\","
                          + "\"kind\":\"Sample\",\"metadata\":{\"name\":\""
                          + name
                          + "\"},\"spec\":{\"size\":1}}",
                      201);
                  send(http, server, "GET", base + "/" + name, null, null, 200);
                  send(
                      http,
                      server,
                      "PATCH",
                      base + "/" + name,
                      Patches.MERGE_PATCH,
                      "{\"spec\":{\"size\":2}}",
                      200);
                  send(
                      http,
                      server,
                      "PATCH",
                      base + "/" + name + "/status",
                      Patches.MERGE_PATCH,
                      "{\"status\":{\"phase\":\"Running\"}}",
                      200);
                  // deleting again keeps the store at the size being measured
                  send(http, server, "DELETE", base + "/" + name, null, null, 200);
                  requests.addAndGet(5);
                }
                return null;
              });
    }
    for (Future<?> w : workers) {
      w.get();
    }
    pool.shutdown();
    return requests.get() / ((System.nanoTime() - start) / 1e9);
  }

  private static void send(
      HttpClient http,
      EmbeddedApiServer server,
      String method,
      String url,
      String contentType,
      String body,
      int expected) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer " + server.token())
            .header("Accept", "application/json");
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != expected) {
        throw new IllegalStateException(
            method + " " + url + " -> " + r.statusCode() + " " + r.body());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
