package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.octomy.batch.fixtures.Eventually;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The visibility API from a controller's first second, on a control plane of its own with no
 * BatchJob at all: the moment the deciding replica's {@code /readyz} first answers 200 (what makes
 * its Deployment Ready), a call through the API server's aggregator answers and both caBundles are
 * published, and {@code kubectl octomy queue} answers the empty queue. Then, with every replica
 * stopped (the Deployment scaled to zero), {@code kubectl octomy queue} answers at once, non-zero,
 * with one sentence saying why and what to check, before and after the APIService turns False.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VisibilityReadyAtStartE2E {

  private static final String LEADER = "octomy-batch-controller-r0";
  private static final String STANDBY = "octomy-batch-controller-r1";

  private static RealCluster cluster;
  private static ProductDeployment product;
  private static KubectlRun kubectl;
  private static KubernetesClient direct;
  private static String ns;
  private static ProductProcess leader;
  private static ProductProcess standby;

  @BeforeAll
  static void ownControlPlane() throws Exception {
    cluster = RealCluster.startAt(Path.of("target", "visibility-ready").toAbsolutePath());
    product = ProductDeployment.installOn(cluster, true);
    ns = cluster.namespace("ready");
    Path plugins = Files.createDirectories(product.dir().resolve("plugins"));
    Files.copy(
        Path.of("target", "kubectl-octomy"),
        plugins.resolve("kubectl-octomy"),
        StandardCopyOption.REPLACE_EXISTING);
    kubectl = new KubectlRun(cluster.kubeconfig(), product.dir().resolve("home"), plugins);
    // As kubectl does: a 503 is an answer, not something to retry with back-off.
    direct =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(cluster.adminConfig()).withRequestRetryBackoffLimit(0).build())
            .build();
  }

  @AfterAll
  static void stop() throws Exception {
    for (ProductProcess p : new ProductProcess[] {leader, standby}) {
      if (p != null) {
        p.close();
      }
    }
    if (direct != null) {
      direct.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void theFirstReadyAnswerMeansTheVisibilityApiAnswers() throws Exception {
    int visibilityPort = freePort();
    int probePort = freePort();
    VisibilityRoute.to(cluster.admin(), visibilityPort);
    Path policy = product.policyFile();
    CompletableFuture<ProductProcess> starting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ControllerReplica.controller(
                    product,
                    policy,
                    LEADER,
                    probePort,
                    "--visibility-port",
                    String.valueOf(visibilityPort));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    awaitReady(probePort, Duration.ofSeconds(120));
    // At once, before anything else: what a user who saw the Deployment Ready would get.
    HttpResponse<String> queue = throughTheApiServer("/namespaces/" + ns + "/pendingjobs");
    String[] bundles = VisibilityRoute.caBundles(cluster.admin());
    leader = starting.get(60, TimeUnit.SECONDS);

    assertThat(queue.code())
        .as("the queue through the aggregator: %s", queue.body())
        .isEqualTo(200);
    assertThat(bundles[0]).as("the APIService's caBundle").isNotEmpty();
    assertThat(bundles[1]).as("the webhook's caBundle, the same certificate").isEqualTo(bundles[0]);
    assertThat(VisibilityRoute.available(cluster.admin())).startsWith("True");
    KubectlRun.Result plugin = kubectl.run("octomy", "queue", "-n", ns);
    assertThat(plugin.exitCode()).as(plugin.all()).isZero();
    assertThat(plugin.all()).contains("No queued jobs");

    // The standby is Ready without serving: a rolling update sees both replicas Ready.
    int standbyProbe = freePort();
    standby =
        ControllerReplica.controller(
            product,
            policy,
            STANDBY,
            standbyProbe,
            "--visibility-port",
            String.valueOf(freePort()));
    awaitReady(standbyProbe, Duration.ofSeconds(60));
    assertThat(probe(probePort)).as("the leader stays ready").isEqualTo(200);
  }

  @Test
  @Order(2)
  void withNoReplicaTheQueueIsASentenceAtOnce() throws Exception {
    // The standby first, so that it cannot take the Lease and publish itself once the leader goes.
    for (ProductProcess p : new ProductProcess[] {standby, leader}) {
      if (p != null) {
        p.stop();
      }
    }
    KubectlRun.Result stale = timedQueue();
    assertThat(stale.exitCode()).isNotZero();
    // Until the aggregator checks again (every 30 s) the APIService may still say Available: then
    // its own words on the failed call say why.
    assertThat(stale.err())
        .startsWith(
            "Error from server (ServiceUnavailable): no octomy-batch controller serves"
                + " visibility.batch.octomy.io/v1alpha1 now (")
        .containsAnyOf("(the API server: ", "is not Available: ")
        .contains(
            "Check that the controller runs (kubectl -n octomy-system get pods -l"
                + " app.kubernetes.io/component=controller)")
        .contains("see docs/deployment.md#controller-and-agents-outside-the-cluster.")
        .doesNotContain("\tat ");

    Eventually.within(
        120, () -> assertThat(VisibilityRoute.available(cluster.admin())).startsWith("False"));
    KubectlRun.Result unavailable = timedQueue();
    assertThat(unavailable.exitCode()).isNotZero();
    assertThat(unavailable.err())
        .contains(
            "no octomy-batch controller serves visibility.batch.octomy.io/v1alpha1 now (the"
                + " APIService v1alpha1.visibility.batch.octomy.io is not Available: ")
        .contains("kubectl get apiservice v1alpha1.visibility.batch.octomy.io");
  }

  /**
   * {@code kubectl octomy queue}, at most two seconds slower than a plugin command that the API
   * server answers without the visibility API ({@code kubectl octomy kubeconfig}, which reads the
   * chart's ServiceAccount and asks for a token): the same start-up, client and connection.
   */
  private static KubectlRun.Result timedQueue() throws Exception {
    Path written = product.dir().resolve("baseline.kubeconfig");
    long t0 = System.nanoTime();
    KubectlRun.Result baseline =
        kubectl.run("octomy", "kubeconfig", "--for", "controller", "-o", written.toString());
    long answered = (System.nanoTime() - t0) / 1_000_000;
    assertThat(baseline.exitCode()).as(baseline.all()).isZero();
    long t1 = System.nanoTime();
    KubectlRun.Result r = kubectl.run("octomy", "queue", "-n", ns);
    long millis = (System.nanoTime() - t1) / 1_000_000;
    assertThat(millis)
        .as("%s ms, where kubectl octomy kubeconfig took %s ms: %s", millis, answered, r.all())
        .isLessThan(answered + 2_000);
    return r;
  }

  private static HttpResponse<String> throughTheApiServer(String path) throws Exception {
    HttpClient http = direct.getHttpClient();
    String base = direct.getConfiguration().getMasterUrl().replaceAll("/$", "");
    return http.sendAsync(
            http.newHttpRequestBuilder()
                .uri(base + "/apis/visibility.batch.octomy.io/v1alpha1" + path)
                .header("Accept", "application/json")
                .build(),
            String.class)
        .get(30, TimeUnit.SECONDS);
  }

  /** Polls /readyz as a kubelet would, only more often, until it answers 200. */
  private static void awaitReady(int port, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (probe(port) == 200) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("/readyz on :" + port + " not 200 within " + timeout);
  }

  /** The status of /readyz, or -1 while nothing listens. */
  private static int probe(int port) throws Exception {
    try {
      return java.net.http.HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (ConnectException notYet) {
      return -1;
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
