package io.octomy.batch.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * With no controller replica serving the visibility API, the API server's aggregator answers 503
 * with a bare "service unavailable" (or, while its condition lags, "error trying to reach
 * service"): the plugin reads the APIService's condition first, asks at most once (no back-off
 * loop), and says why and what to check in one sentence, within two seconds.
 */
class PluginUnavailableTest {

  private static final String UNAVAILABLE =
      """
      {"kind":"APIService","apiVersion":"apiregistration.k8s.io/v1",
       "metadata":{"name":"v1alpha1.visibility.batch.octomy.io"},
       "status":{"conditions":[{"type":"Available","status":"False","reason":"EndpointsNotFound",
         "message":"cannot find endpoints for service/octomy-batch-visibility in \\"octomy-system\\""}]}}
      """;

  private static final String AVAILABLE =
      """
      {"kind":"APIService","apiVersion":"apiregistration.k8s.io/v1",
       "metadata":{"name":"v1alpha1.visibility.batch.octomy.io"},
       "status":{"conditions":[{"type":"Available","status":"True","reason":"Passed",
         "message":"all checks passed"}]}}
      """;

  private HttpServer aggregator;
  private final AtomicInteger visibilityCalls = new AtomicInteger();
  private final AtomicInteger apiServiceReads = new AtomicInteger();
  private boolean apiServiceReadable = true;

  /** How many reads of the APIService find it Available before it turns unavailable. */
  private int availableReads;

  /** What the aggregator answers a visibility call; null: the 503 of an unavailable APIService. */
  private volatile String reachFailure;

  private volatile boolean hangs;

  @BeforeEach
  void start() throws IOException {
    aggregator = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    aggregator.createContext(
        "/apis/visibility.batch.octomy.io/",
        x -> {
          visibilityCalls.incrementAndGet();
          if (hangs) {
            sleep(20_000);
          }
          if (reachFailure != null) {
            answer(x, 503, "application/json", reachFailure);
          } else {
            answer(x, 503, "text/plain", "service unavailable\n");
          }
        });
    aggregator.createContext(
        "/apis/apiregistration.k8s.io/",
        x -> {
          if (apiServiceReadable) {
            boolean available = apiServiceReads.incrementAndGet() <= availableReads;
            answer(x, 200, "application/json", available ? AVAILABLE : UNAVAILABLE);
          } else {
            answer(x, 403, "application/json", "{\"kind\":\"Status\",\"code\":403}");
          }
        });
    aggregator.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    aggregator.start();
  }

  @AfterEach
  void stop() {
    aggregator.stop(0);
  }

  @Test
  void anUnavailableApiServiceIsTheAnswerWithoutAVisibilityCall(@TempDir Path dir)
      throws IOException {
    Run r = run(dir, "queue");
    assertThat(r.code()).isEqualTo(1);
    assertThat(visibilityCalls).as("the aggregator would refuse it: not sent").hasValue(0);
    assertThat(r.err().strip())
        .isEqualTo(
            "Error from server (ServiceUnavailable): no octomy-batch controller serves"
                + " visibility.batch.octomy.io/v1alpha1 now (the APIService"
                + " v1alpha1.visibility.batch.octomy.io is not Available: EndpointsNotFound, cannot"
                + " find endpoints for service/octomy-batch-visibility in \"octomy-system\"). Check"
                + " that the controller runs (kubectl -n octomy-system get pods -l"
                + " app.kubernetes.io/component=controller) and that the APIService is Available"
                + " (kubectl get apiservice v1alpha1.visibility.batch.octomy.io); for a controller"
                + " outside the cluster see"
                + " docs/deployment.md#controller-and-agents-outside-the-cluster.");
  }

  @Test
  void theAggregatorFailingToReachTheReplicaIsTheSameSentenceWithItsWords(@TempDir Path dir)
      throws IOException {
    availableReads = 1;
    reachFailure =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"message\":\"error trying to reach service: dial tcp 127.0.0.1:9: connect:"
            + " connection refused\",\"reason\":\"ServiceUnavailable\",\"code\":503}";
    Run r = run(dir, "why", "some-job");
    assertThat(r.code()).isEqualTo(1);
    assertThat(visibilityCalls).hasValue(1);
    assertThat(r.err().strip())
        .startsWith(
            "Error from server (ServiceUnavailable): no octomy-batch controller serves"
                + " visibility.batch.octomy.io/v1alpha1 now (the APIService"
                + " v1alpha1.visibility.batch.octomy.io is not Available: EndpointsNotFound,")
        .contains(
            "(the API server: error trying to reach service: dial tcp 127.0.0.1:9: connect:"
                + " connection refused). Check that the controller runs");
  }

  @Test
  void aCallLeftUnansweredAsTheApiServiceTurnsUnavailableIsAnsweredWithinTwoSeconds(
      @TempDir Path dir) throws IOException {
    availableReads = 1;
    hangs = true;
    long t0 = System.nanoTime();
    Run r = run(dir, "queue");
    long millis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("is not Available: EndpointsNotFound");
    assertThat(millis)
        .as("answered after the 2 s re-check, not the call's timeout")
        .isLessThan(4_000);
  }

  @Test
  void aUserWhoMayNotReadTheApiServiceGetsTheSameAdviceWithoutIt(@TempDir Path dir)
      throws IOException {
    apiServiceReadable = false;
    Run r = run(dir, "why", "some-job");
    assertThat(r.code()).isEqualTo(1);
    assertThat(visibilityCalls).hasValue(1);
    assertThat(r.err())
        .startsWith(
            "Error from server (ServiceUnavailable): no octomy-batch controller serves"
                + " visibility.batch.octomy.io/v1alpha1 now. Check that the controller runs")
        .doesNotContain("\tat ");
  }

  private record Run(int code, String err) {}

  private Run run(Path dir, String... args) throws IOException {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: c, context: {cluster: c, user: u, namespace: team-a}}]
        current-context: c
        """
            .formatted(aggregator.getAddress().getPort()));
    StringWriter err = new StringWriter();
    CommandLine cl = OctomyPlugin.commandLine();
    cl.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--kubeconfig";
    all[args.length + 1] = kubeconfig.toString();
    int code = cl.execute(all);
    return new Run(code, err.toString());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void answer(
      com.sun.net.httpserver.HttpExchange x, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", type);
    x.sendResponseHeaders(code, bytes.length);
    try (var out = x.getResponseBody()) {
      out.write(bytes);
    }
  }
}
