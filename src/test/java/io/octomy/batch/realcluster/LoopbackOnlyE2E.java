package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.fixtures.Eventually;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The test cluster never dials outside 127.0.0.0/8, whatever is installed on it: the chart is
 * installed as a user would (its webhook and APIService behind a ClusterIP Service, no localhost
 * patch), jobs are created, and every connection the control plane made is read back from {@code
 * DIR/egress.log} (each CONNECT through the API server's egress selector, and any socket of the
 * control plane whose peer left loopback).
 */
class LoopbackOnlyE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CHART_SERVICE = ProductDeployment.NS + "/octomy-batch-visibility";
  private static ProductDeployment product;
  private static KubernetesClient admin;
  private static String ns;

  @BeforeAll
  static void installTheChartUnpatched() throws Exception {
    product = ProductDeployment.get();
    admin = product.cluster().admin();
    product.enableVisibility(true);
    ns = product.cluster().namespace("loopback");
  }

  @AfterAll
  static void uninstall() {
    if (product != null) {
      product.enableVisibility(false);
      admin.namespaces().withName(ns).delete();
    }
  }

  @Test
  void theChartsWebhookAndApiServiceAreNeverDialledAtTheirClusterIp() throws Exception {
    KubectlRun kubectl = product.cluster().kubectl();
    for (int i = 0; i < 3; i++) {
      KubectlRun.Result created =
          kubectl.runWithInput(job("loopback-" + i), "create", "-n", ns, "-f", "-");
      assertThat(created.exitCode()).as(created.all()).isZero();
    }
    KubectlRun.Result visibility =
        kubectl.run("get", "--raw", "/apis/visibility.batch.octomy.io/v1alpha1");
    assertThat(visibility.exitCode()).as("nothing serves it here: " + visibility.all()).isNotZero();

    List<JsonNode> toChart = records().stream().filter(r -> forService(r, CHART_SERVICE)).toList();
    assertThat(toChart)
        .as("the webhook and the aggregator asked for the chart's Service through the proxy")
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.path("verdict").asText()).isEqualTo("refused"))
        .allSatisfy(r -> assertThat(r.path("why").asText()).contains("named targetPort"));
    assertEveryConnectionStayedOnLoopback();
  }

  @Test
  void aClusterIpWithANumericTargetPortIsDialledOnLoopback() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      AtomicInteger accepted = new AtomicInteger();
      Thread acceptor =
          new Thread(
              () -> {
                while (!listener.isClosed()) {
                  try (Socket s = listener.accept()) {
                    accepted.incrementAndGet();
                  } catch (IOException closed) {
                    return;
                  }
                }
              });
      acceptor.start();
      String service = "loopback-probe";
      admin
          .services()
          .inNamespace(ns)
          .resource(
              new ServiceBuilder()
                  .withNewMetadata()
                  .withName(service)
                  .endMetadata()
                  .withNewSpec()
                  .withType("ClusterIP")
                  .addNewPort()
                  .withPort(443)
                  .withTargetPort(new IntOrString(listener.getLocalPort()))
                  .endPort()
                  .endSpec()
                  .build())
          .create();
      MutatingWebhookConfiguration webhook = probeWebhook(service);
      admin.admissionRegistration().v1().mutatingWebhookConfigurations().resource(webhook).create();
      try {
        // The webhook's configuration reaches the API server's cache a moment after the create.
        Eventually.within(
            30,
            () -> {
              admin
                  .configMaps()
                  .inNamespace(ns)
                  .resource(
                      new ConfigMapBuilder()
                          .withNewMetadata()
                          .withGenerateName("probe-")
                          .endMetadata()
                          .build())
                  .create();
              assertThat(accepted.get()).isPositive();
            });
      } finally {
        admin
            .admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .resource(webhook)
            .delete();
        listener.close();
      }
      assertThat(records().stream().filter(r -> forService(r, ns + "/" + service)))
          .isNotEmpty()
          .allSatisfy(
              r ->
                  assertThat(r.path("dialed").asText())
                      .isEqualTo("127.0.0.1:" + listener.getLocalPort()));
    }
    assertEveryConnectionStayedOnLoopback();
  }

  private static void assertEveryConnectionStayedOnLoopback() {
    for (JsonNode r : records()) {
      assertThat(r.path("verdict").asText()).as(r.toString()).isIn("dialed", "refused");
      if (r.path("verdict").asText().equals("dialed")) {
        assertThat(r.path("dialed").asText()).as(r.toString()).startsWith("127.");
      }
    }
  }

  private static boolean forService(JsonNode record, String service) {
    return record.path("service").asText().equals(service);
  }

  private static List<JsonNode> records() {
    Path log = product.cluster().dir().resolve("egress.log");
    List<JsonNode> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(log)) {
        out.add(JSON.readTree(line));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private MutatingWebhookConfiguration probeWebhook(String service) {
    return new MutatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName("loopback-probe.octomy.io")
        .endMetadata()
        .addNewWebhook()
        .withName("loopback-probe.octomy.io")
        .withAdmissionReviewVersions("v1")
        .withSideEffects("None")
        .withFailurePolicy("Ignore")
        .withTimeoutSeconds(2)
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of("kubernetes.io/metadata.name", ns))
        .endNamespaceSelector()
        .withNewClientConfig()
        .withNewService()
        .withName(service)
        .withNamespace(ns)
        .withPort(443)
        .endService()
        .endClientConfig()
        .addNewRule()
        .withApiGroups("")
        .withApiVersions("v1")
        .withOperations("CREATE")
        .withResources("configmaps")
        .endRule()
        .endWebhook()
        .build();
  }

  private static String job(String name) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          template:
            spec:
              containers: [{name: main, image: busybox, command: ["true"]}]
        """
        .formatted(name);
  }
}
