package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.octomy.batch.api.BatchNode;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * The agent's log names no namespace for the cluster-scoped BatchNode, and says why a call failed.
 */
class ClientFailureTest {

  @Test
  void aBatchNodeCallThatCannotConnectIsDescribedWithoutTheKubeconfigsNamespace() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + closed)
                    .withNamespace("octomy-system")
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      KubernetesClientException e =
          catchThrowableOfType(
              KubernetesClientException.class,
              () -> client.resources(BatchNode.class).withName("ws-1").get());
      assertThat(e.toString()).as("the client's own words").contains("namespace");
      // Why, as the JDK's client says it (a refused connection ends in a closed channel).
      assertThat(ClientFailure.describe(e))
          .doesNotContain("namespace")
          .doesNotContain("Operation:")
          .startsWith("java.");
    }
  }

  @Test
  void aRefusalIsTheServersOwnSentence() {
    KubernetesClientException e =
        new KubernetesClientException(
            new StatusBuilder()
                .withCode(403)
                .withMessage(
                    "batchnodes.batch.octomy.io \"ws-2\" is forbidden: an agent may write only the"
                        + " BatchNode of its own node, not ws-2")
                .build());
    assertThat(ClientFailure.describe(e))
        .isEqualTo(
            "HTTP 403: batchnodes.batch.octomy.io \"ws-2\" is forbidden: an agent may write only the"
                + " BatchNode of its own node, not ws-2");
  }
}
