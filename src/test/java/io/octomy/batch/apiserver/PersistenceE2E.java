package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Objects survive a clean restart and a kill -9; a broken database stops start-up and is left
 * alone.
 */
class PersistenceE2E {

  @TempDir Path dir;

  private static GenericKubernetesResource sample(String name, int size) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("test.octomy.io/v1alpha1")
        .withKind("Sample")
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .addToAdditionalProperties("spec", Map.of("size", size))
        .build();
  }

  /** Creates objects, bumps generation on some and writes status on all; returns them as stored. */
  private static List<GenericKubernetesResource> writeSome(KubernetesClient client, int count) {
    var samples = client.genericKubernetesResources(TestCrds.SAMPLES).inNamespace("default");
    List<GenericKubernetesResource> stored = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      GenericKubernetesResource s = samples.resource(sample("s" + i, i % 10)).create();
      if (i % 3 == 0) {
        s =
            samples
                .withName("s" + i)
                .patch(
                    PatchContext.of(PatchType.JSON_MERGE),
                    "{\"spec\":{\"size\":" + (i % 10 + 1) + "}}");
      }
      s.setAdditionalProperty("status", Map.of("phase", "P" + i));
      stored.add(samples.resource(s).patchStatus());
    }
    samples.withName("s0").delete();
    stored.remove(0);
    return stored;
  }

  private static void assertAllBack(
      KubernetesClient client, List<GenericKubernetesResource> before, long lastVersion) {
    var samples = client.genericKubernetesResources(TestCrds.SAMPLES).inNamespace("default");
    assertThat(samples.withName("s0").get()).isNull();
    for (GenericKubernetesResource b : before) {
      GenericKubernetesResource a = samples.withName(b.getMetadata().getName()).get();
      assertThat(a).as(b.getMetadata().getName()).isNotNull();
      assertThat(a.getMetadata().getUid()).isEqualTo(b.getMetadata().getUid());
      assertThat(a.getMetadata().getCreationTimestamp())
          .isEqualTo(b.getMetadata().getCreationTimestamp());
      assertThat(a.getMetadata().getGeneration()).isEqualTo(b.getMetadata().getGeneration());
      assertThat(a.getMetadata().getResourceVersion())
          .isEqualTo(b.getMetadata().getResourceVersion());
      assertThat((Object) a.get("status")).isEqualTo(b.get("status"));
      assertThat((Object) a.get("spec")).isEqualTo(b.get("spec"));
    }
    // versions keep increasing after a restart, also past the deletion of s0
    GenericKubernetesResource next = samples.resource(sample("after-restart", 1)).create();
    assertThat(Long.parseLong(next.getMetadata().getResourceVersion())).isGreaterThan(lastVersion);
  }

  @Test
  void cleanRestartBringsBackEveryObject() {
    List<GenericKubernetesResource> before;
    long lastVersion;
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()));
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.clientConfig()).build()) {
      before = writeSome(client, 12);
      lastVersion = server.resourceVersion();
    }
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()));
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.clientConfig()).build()) {
      assertThat(server.resourceVersion()).isEqualTo(lastVersion);
      assertAllBack(client, before, lastVersion);
    }
  }

  @Test
  void killMinus9LosesNothingThatWasAnswered() throws Exception {
    String classpath = System.getProperty("java.class.path");
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classpath,
                ServerProcessMain.class.getName(),
                dir.toString(),
                "0",
                TestCrds.sampleCrd().toString())
            .redirectErrorStream(true)
            .start();
    List<GenericKubernetesResource> before;
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.startsWith("READY ")) {
        // start-up log
      }
      assertThat(line).as("child server started").isNotNull();
      Config config =
          new ConfigBuilder(Config.fromKubeconfig(Files.readString(dir.resolve("kubeconfig"))))
              .build();
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        before = writeSome(client, 30);
      }
    } finally {
      child.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no WAL checkpoint
      child.waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(child.exitValue()).isEqualTo(137);
    assertThat(dir.resolve("state.db-wal")).exists();
    long lastVersion =
        before.stream()
            .mapToLong(r -> Long.parseLong(r.getMetadata().getResourceVersion()))
            .max()
            .orElseThrow();
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()));
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.clientConfig()).build()) {
      assertAllBack(client, before, lastVersion);
    }
  }

  @Test
  void corruptDatabaseFailsStartAndIsLeftAsItWas() throws Exception {
    Path db = dir.resolve("state.db");
    byte[] garbage =
        "this is not an SQLite database, but somebody's precious file\n"
            .repeat(200)
            .getBytes(StandardCharsets.UTF_8);
    Files.write(db, garbage);
    assertThatThrownBy(() -> EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd())))
        .isInstanceOf(StateStoreException.class)
        .hasMessageContaining("cannot open state database " + db)
        .hasMessageContaining("left untouched");
    assertThat(Files.readAllBytes(db)).isEqualTo(garbage);
    assertThat(dir.resolve("kubeconfig")).doesNotExist();
    // and the directory lock was released: a good database can be used afterwards
    Files.delete(db);
    EmbeddedApiServer.start(dir, 0, List.of()).close();
  }

  @Test
  void aSecondServerOnTheSameDirectoryIsRefused() {
    try (EmbeddedApiServer first = EmbeddedApiServer.start(dir, 0, List.of())) {
      assertThatThrownBy(() -> EmbeddedApiServer.start(dir, 0, List.of()))
          .isInstanceOf(ServerCannotStart.class)
          .hasMessageContaining("in use")
          .hasMessageContaining("--state-dir");
      assertThat(first.objectCount()).isPositive();
    }
  }

  @Test
  void closeIsCleanAndIdempotent() throws Exception {
    EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()));
    int port = server.port();
    server.close();
    server.close();
    // the WAL is folded into the database file and the port is free again
    assertThat(
            Files.exists(dir.resolve("state.db-wal"))
                ? Files.size(dir.resolve("state.db-wal"))
                : 0L)
        .isZero();
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(s.getLocalPort()).isEqualTo(port);
    }
  }
}
