package io.octomy.batch.controller.aggregated;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.octomy.batch.controller.MockApi;
import io.octomy.batch.fixtures.SentRequests;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the deciding replica publishes its certificate for the reservation webhook, on fabric8's CRUD
 * mock API server (which stores and patches any resource): once while it decides, again after it
 * decided no more, and without asking every second for a configuration the chart left out.
 */
class ServingReplicaIT {

  private static final String PEM =
      "-----BEGIN CERTIFICATE-----\nMIIBsample\n-----END CERTIFICATE-----\n";
  private static final String WEBHOOKS_PATH =
      "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

  private final KubernetesMockServer server = MockApi.crudServer();
  private final KubernetesClient admin = server.createClient();
  private final SentRequests sent = new SentRequests();
  private final KubernetesClient client = sent.client(admin.getConfiguration());
  private final AtomicBoolean deciding = new AtomicBoolean(true);
  private final ServingReplica replica =
      new ServingReplica(client, deciding::get, PEM, "octomy-system", null);

  @AfterEach
  void stop() {
    replica.close();
    client.close();
    admin.close();
    server.destroy();
  }

  @Test
  void theDecidingReplicaPublishesItsCertificateOnceAndAgainAfterAHandOver() {
    createConfiguration();

    replica.check();
    assertThat(caBundle()).isEqualTo(PEM);
    sent.clear();
    replica.check();
    assertThat(webhookRequests()).as("published: nothing more to ask").isZero();

    // Another replica decided meanwhile and published its own certificate.
    deciding.set(false);
    replica.check();
    admin
        .genericKubernetesResources(
            "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")
        .withName(ServingReplica.WEBHOOK_CONFIGURATION)
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\""
                + b64("other")
                + "\"}]");
    assertThat(caBundle()).isEqualTo("other");
    deciding.set(true);
    replica.check();
    assertThat(caBundle()).isEqualTo(PEM);
  }

  @Test
  void aChartWithoutTheWebhookIsAskedAboutItOnceAMinute() {
    for (int i = 0; i < 61; i++) {
      replica.check();
    }
    assertThat(webhookRequests()).as("the first check, then a minute of checks skipped").isOne();
    replica.check();
    assertThat(webhookRequests()).isEqualTo(2);
  }

  private void createConfiguration() {
    String yaml =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: MutatingWebhookConfiguration
        metadata: {name: %s}
        webhooks:
        - name: %s
          admissionReviewVersions: [v1]
          sideEffects: None
          clientConfig:
            service: {name: octomy-batch-visibility, namespace: octomy-system, path: %s}
        """
            .formatted(
                ServingReplica.WEBHOOK_CONFIGURATION,
                ServingReplica.WEBHOOK,
                ReservationFinalizerWebhook.PATH);
    admin.resource(yaml).create();
  }

  private String caBundle() {
    var r =
        admin
            .genericKubernetesResources(
                "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")
            .withName(ServingReplica.WEBHOOK_CONFIGURATION)
            .get();
    JsonNode node = new ObjectMapper().valueToTree(r);
    String b64 = node.at("/webhooks/0/clientConfig/caBundle").asText("");
    return new String(Base64.getDecoder().decode(b64), StandardCharsets.US_ASCII);
  }

  private long webhookRequests() {
    return sent.sent().stream().filter(s -> s.contains(WEBHOOKS_PATH)).count();
  }

  private static String b64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }
}
