package io.octomy.batch.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.Policy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * The embedded API server with the product's CRDs and a client that reaches it in process, as
 * standalone's controller does; the controller itself starts when the test has set the scene.
 * Closed in reverse order.
 */
final class EmbeddedServerController implements AutoCloseable {

  final EmbeddedApiServer server;
  final KubernetesClient client;
  final TestClock clock = TestClock.at(Instant.now());
  private BatchController controller;

  private EmbeddedServerController(EmbeddedApiServer server) {
    this.server = server;
    this.client = server.inProcessClient();
  }

  static EmbeddedServerController open(Path dir) {
    return new EmbeddedServerController(
        EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds()));
  }

  /** A single controller, no leader election: a pass at once, a tick of 300 ms, 4 writers. */
  void startController() throws IOException {
    controller =
        BatchController.start(
            client,
            new BatchController.ControllerOptions(
                Policy.defaults(),
                false,
                "default",
                "127.0.0.1",
                0,
                new AdmissionLoop.Settings(
                    Duration.ZERO, Duration.ofMillis(300), Duration.ofSeconds(30), 4)),
            clock);
  }

  @Override
  public void close() {
    if (controller != null) {
      controller.close();
    }
    client.close();
    server.close();
  }
}
