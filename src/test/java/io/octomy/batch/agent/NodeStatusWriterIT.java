package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.fixtures.SentRequests;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.NodeMode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's report is one request: a JSON patch of its node's status, nothing read first. */
class NodeStatusWriterIT {

  @TempDir Path dir;
  private EmbeddedApiServer server;
  private KubernetesClient client;
  private final SentRequests requests = new SentRequests();

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds());
    client = requests.client(server.clientConfig());
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void aReportIsOnePatchOfTheStatus() {
    NodeStatusWriter writer = new NodeStatusWriter(client, "n1");
    writer.ensureExists(NodeMode.Drone, Executor.Process);
    BatchNodeStatus status = new BatchNodeStatus();
    status.setCapacity(Map.of("octomy.io/cpu-milli", 4000L));
    requests.clear();

    writer.writeStatus(status);

    assertThat(requests.sent())
        .containsExactly("PATCH /apis/batch.octomy.io/v1alpha1/batchnodes/n1/status");
    BatchNode written = client.resources(BatchNode.class).withName("n1").get();
    assertThat(written.getStatus().getCapacity()).containsEntry("octomy.io/cpu-milli", 4000L);
  }
}
