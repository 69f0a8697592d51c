package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/**
 * {@link Fabric8ClientIT} over the transport of standalone mode's own controller and agent ({@link
 * EmbeddedApiServer#inProcessClient}): the same answers, watches and informers as over HTTP, and
 * the same request limits.
 */
class InMemoryClientIT extends Fabric8ClientIT {

  @Override
  KubernetesClient connect(EmbeddedApiServer server) {
    return server.inProcessClient();
  }

  @Test
  void aBodyOverTheLimitIsRefusedWith413AndNothingIsStored() {
    String large = "x".repeat(ServerLimits.defaults().maxBodyBytes());
    assertThatThrownBy(
            () ->
                client
                    .configMaps()
                    .inNamespace("default")
                    .resource(
                        new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("too-large")
                            .endMetadata()
                            .addToData("blob", large)
                            .build())
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(413));
    assertThat(client.configMaps().inNamespace("default").withName("too-large").get()).isNull();
  }

  @Test
  void aClosedClientRefusesRequests() {
    KubernetesClient closed = server.inProcessClient();
    closed.close();
    assertThatThrownBy(() -> closed.configMaps().inNamespace("default").list())
        .isInstanceOf(KubernetesClientException.class);
  }
}
