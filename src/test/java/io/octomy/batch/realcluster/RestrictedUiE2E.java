package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.fixtures.UiAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * kubectl octomy ui on a cluster for someone who may read one namespace: the page's API calls go
 * out with that person's own credentials, so the page reads their namespace's jobs and is refused,
 * as kubectl would be, everything else (another namespace, every namespace at once, the nodes).
 */
class RestrictedUiE2E {

  private static final String JOBS = "/apis/batch.octomy.io/v1alpha1/namespaces/%s/batchjobs";

  @Test
  void thePageReadsWhatTheUsersRoleGrantsAndIsRefusedTheRest() throws Exception {
    ProductDeployment product = ProductDeployment.get();
    RealCluster c = product.cluster();
    KubernetesClient admin = c.admin();
    KubectlRun kubectl = c.kubectl();
    String own = c.namespace("ui-own");
    String other = c.namespace("ui-other");
    ok(kubectl.runWithInput(job("mine"), "-n", own, "create", "-f", "-"));
    ok(kubectl.runWithInput(job("theirs"), "-n", other, "create", "-f", "-"));
    admin
        .serviceAccounts()
        .inNamespace(own)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("reader").endMetadata().build())
        .create();
    ok(
        kubectl.run(
            "create",
            "rolebinding",
            "reader-user",
            "-n",
            own,
            "--clusterrole=octomy-batch-user",
            "--serviceaccount=" + own + ":reader"));
    String token =
        admin
            .serviceAccounts()
            .inNamespace(own)
            .withName("reader")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Path kubeconfig = product.tokenKubeconfig("ui-reader", "reader", token, own);

    Path plugins = Files.createDirectories(product.dir().resolve("ui-plugins"));
    Files.copy(
        Path.of("target", "kubectl-octomy"),
        plugins.resolve("kubectl-octomy"),
        StandardCopyOption.REPLACE_EXISTING);
    KubectlRun asReader = new KubectlRun(kubeconfig, product.dir().resolve("ui-home"), plugins);
    Path log = product.dir().resolve("ui.log");
    Process ui = asReader.start(log, "octomy", "ui");
    try {
      String url = UiAddress.awaitPrinted(ui, log);
      HttpResponse<String> mine = get(url, JOBS.formatted(own));
      assertThat(mine.statusCode()).as(mine.body()).isEqualTo(200);
      assertThat(mine.body()).contains("\"name\":\"mine\"").doesNotContain("theirs");

      for (String refused :
          new String[] {
            JOBS.formatted(other),
            "/apis/batch.octomy.io/v1alpha1/batchjobs",
            "/apis/batch.octomy.io/v1alpha1/batchnodes"
          }) {
        HttpResponse<String> answer = get(url, refused);
        assertThat(answer.statusCode()).as(refused + ": " + answer.body()).isEqualTo(403);
        assertThat(answer.body())
            .as(refused)
            .contains("system:serviceaccount:" + own + ":reader")
            .doesNotContain("theirs");
      }
      // What RBAC grants is the whole of it: the reader's own kubectl is refused the same.
      assertThat(asReader.run("-n", other, "get", "bj").exitCode()).isNotZero();
    } finally {
      ui.destroy();
      ui.waitFor();
    }
  }

  private static HttpResponse<String> get(String url, String path) throws Exception {
    HttpClient browser = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    return browser.send(
        HttpRequest.newBuilder(URI.create(url).resolve(path))
            .header("X-Octomy-UI", "1")
            .timeout(Duration.ofSeconds(20))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void ok(KubectlRun.Result r) {
    assertThat(r.exitCode()).as(r.all()).isZero();
  }

  private static String job(String name) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          nodeSelector: {ui-restricted: none}
          template:
            spec:
              containers: [{name: main, image: busybox, command: [sh, -c, 'echo hi']}]
        """
        .formatted(name);
  }
}
