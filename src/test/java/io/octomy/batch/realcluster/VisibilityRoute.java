package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.octomy.batch.controller.aggregated.ServingReplica;
import io.octomy.batch.fixtures.Eventually;

/**
 * The chart's visibility APIService and reservation webhook pointed at a replica on this machine:
 * the chart's ClusterIP Service replaced by an ExternalName Service of the same name for {@code
 * localhost} and the replica's port (docs/real-cluster.md, "For an aggregated API server").
 */
final class VisibilityRoute {

  static final String SERVICE = "octomy-batch-visibility";

  private static final ObjectMapper JSON = new ObjectMapper();

  private VisibilityRoute() {}

  static void to(KubernetesClient admin, int port) throws InterruptedException {
    var service = admin.services().inNamespace(ProductDeployment.NS).withName(SERVICE);
    if (service.get() != null && !"ExternalName".equals(service.get().getSpec().getType())) {
      service.delete();
      Eventually.within(30, () -> assertThat(service.get()).isNull());
    }
    if (service.get() == null) {
      admin
          .services()
          .inNamespace(ProductDeployment.NS)
          .resource(
              new ServiceBuilder()
                  .withNewMetadata()
                  .withName(SERVICE)
                  .endMetadata()
                  .withNewSpec()
                  .withType("ExternalName")
                  .withExternalName("localhost")
                  .endSpec()
                  .build())
          .create();
    }
    admin
        .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
        .withName(ServingReplica.API_SERVICE)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"service\":{\"port\":" + port + "}}}");
    admin
        .genericKubernetesResources(
            "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")
        .withName(ServingReplica.WEBHOOK_CONFIGURATION)
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig/service/port\",\"value\":"
                + port
                + "}]");
  }

  /** "STATUS message" of the APIService's Available condition. */
  static String available(KubernetesClient admin) {
    GenericKubernetesResource s =
        admin
            .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
            .withName(ServingReplica.API_SERVICE)
            .get();
    for (JsonNode c : JSON.valueToTree(s).path("status").path("conditions")) {
      if (c.path("type").asText().equals("Available")) {
        return c.path("status").asText() + " " + c.path("message").asText();
      }
    }
    return "no Available condition";
  }

  /** The APIService's caBundle and the webhook's, base64 as stored ("" when absent). */
  static String[] caBundles(KubernetesClient admin) {
    JsonNode api =
        JSON.valueToTree(
            admin
                .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
                .withName(ServingReplica.API_SERVICE)
                .get());
    JsonNode hook =
        JSON.valueToTree(
            admin
                .genericKubernetesResources(
                    "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")
                .withName(ServingReplica.WEBHOOK_CONFIGURATION)
                .get());
    return new String[] {
      api.path("spec").path("caBundle").asText(),
      hook.at("/webhooks/0/clientConfig/caBundle").asText()
    };
  }
}
