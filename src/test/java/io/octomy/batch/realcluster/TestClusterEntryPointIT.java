package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@code test-cluster/start DIR} that other tools rely on: the export line once the
 * API server answers, a cluster-admin kubeconfig in DIR, a clean stop on SIGTERM (exit 0), and a
 * restart on the same DIR that keeps what was stored.
 */
class TestClusterEntryPointIT {

  @Test
  void startsAnswersStopsCleanlyOnSigtermAndKeepsItsStateAcrossARestart() throws Exception {
    Path dir = Path.of("target", "test-cluster-contract").toAbsolutePath();
    try (RealCluster first = RealCluster.startAt(dir)) {
      assertThat(Files.readString(dir.resolve("start.out")))
          .contains("export KUBECONFIG=" + dir.resolve("kubeconfig"));
      KubectlRun.Result auth = first.kubectl().run("auth", "can-i", "*", "*");
      assertThat(auth.out().trim()).as(auth.all()).isEqualTo("yes");
      first
          .admin()
          .configMaps()
          .inNamespace("default")
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("kept")
                  .endMetadata()
                  .withData(Map.of("k", "v"))
                  .build())
          .create();
      assertThat(first.stopAndWait()).as("exit code after SIGTERM").isZero();
      assertThat(Files.readString(dir.resolve("start.out"))).contains("test-cluster: stopped");
    }
    try (RealCluster again = RealCluster.restartAt(dir)) {
      assertThat(again.admin().configMaps().inNamespace("default").withName("kept").get().getData())
          .containsEntry("k", "v");
      assertThat(again.stopAndWait()).isZero();
    }
  }
}
