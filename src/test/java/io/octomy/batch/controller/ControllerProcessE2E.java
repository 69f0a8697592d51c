package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.CPU;
import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code octomy-batch controller} as a process: it leads, decides, and stops cleanly on SIGTERM.
 */
class ControllerProcessE2E {

  @TempDir Path dir;

  @Test
  void theControllerCommandLeadsDecidesAndStopsOnSigterm() throws Exception {
    KubernetesMockServer server = MockApi.crudServer();
    try (KubernetesClient client = server.createClient()) {
      MockApi.installCrds(client);
      aNode("n1").capacity(CPU, 2000).heartbeat(Instant.now()).create(client);
      aJob("first").cpu(1000).create(client);
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(
          kubeconfig,
          """
          apiVersion: v1
          kind: Config
          clusters: [{name: mock, cluster: {server: "%s"}}]
          users: [{name: me, user: {token: unused}}]
          contexts: [{name: mock, context: {cluster: mock, user: me, namespace: default}}]
          current-context: mock
          """
              .formatted(client.getConfiguration().getMasterUrl()));
      Path log = dir.resolve("controller.log");
      ProcessBuilder pb =
          new ProcessBuilder(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-cp",
                      System.getProperty("java.class.path"),
                      "io.octomy.batch.Main",
                      "controller",
                      "--lease-namespace",
                      "default",
                      "--metrics-port",
                      "-1"))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().put("KUBECONFIG", kubeconfig.toString());
      Process p = pb.start();
      try {
        Eventually.until(
            Duration.ofSeconds(60),
            "the job to be admitted by the controller process",
            () -> {
              BatchJob j =
                  client.resources(BatchJob.class).inNamespace("default").withName("first").get();
              return j.getStatus() != null && "Admitted".equals(j.getStatus().getReason());
            });
        p.destroy(); // SIGTERM, as the kubelet sends it
        assertThat(p.waitFor(20, TimeUnit.SECONDS))
            .as("exits within 20 s of SIGTERM; log:%n%s", Files.readString(log))
            .isTrue();
      } finally {
        p.destroyForcibly();
      }
      assertThat(Files.readString(log)).contains("octomy-batch controller watching");
    } finally {
      server.destroy();
    }
  }
}
