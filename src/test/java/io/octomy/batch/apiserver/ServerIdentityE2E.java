package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kubeconfig copied out of the state directory keeps working with stock kubectl after a restart
 * on the same directory (same certificate, token and port), stops working only after {@code
 * --rotate-credentials}, and a damaged identity file stops start-up with the way out rather than
 * being replaced without a word.
 */
class ServerIdentityE2E {

  @TempDir Path dir;

  private Kubectl kubectl(Path kubeconfig) {
    return new Kubectl(Kubectl.versions().get(0), kubeconfig, dir.resolve("home"));
  }

  @Test
  void aCopiedKubeconfigWorksAfterARestartAndGoesStaleOnlyOnRotation() throws Exception {
    Path state = dir.resolve("state");
    Path copy = dir.resolve("copied-kubeconfig");
    String token;
    String cert;
    int port;
    try (EmbeddedApiServer first = EmbeddedApiServer.start(state, 0, List.of())) {
      Files.copy(first.kubeconfig(), copy);
      token = first.token();
      cert = first.certificatePem();
      port = first.port();
      assertThat(kubectl(copy).run("create", "configmap", "kept").exitCode()).isZero();
    }
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(state.resolve(ServerIdentityFile.NAME))))
        .isEqualTo("rw-------");

    try (EmbeddedApiServer second = EmbeddedApiServer.start(state, 0, List.of())) {
      assertThat(second.token()).isEqualTo(token);
      assertThat(second.certificatePem()).isEqualTo(cert);
      assertThat(second.port()).isEqualTo(port);
      assertThat(Files.readString(second.kubeconfig())).isEqualTo(Files.readString(copy));
      Kubectl.Result get = kubectl(copy).run("get", "configmap", "kept", "-o", "name");
      assertThat(get.exitCode()).as(get.all()).isZero();
      assertThat(get.out().strip()).isEqualTo("configmap/kept");
    }

    try (EmbeddedApiServer rotated =
        EmbeddedApiServer.start(state, 0, List.of(), true, ServerLimits.defaults())) {
      assertThat(rotated.token()).isNotEqualTo(token);
      assertThat(rotated.certificatePem()).isNotEqualTo(cert);
      Kubectl.Result stale = kubectl(copy).run("get", "configmap", "kept");
      assertThat(stale.exitCode()).isNotZero();
      assertThat(stale.err()).contains("certificate");
      Kubectl.Result fresh = kubectl(rotated.kubeconfig()).run("get", "configmap", "kept");
      assertThat(fresh.exitCode()).as(fresh.all()).isZero();
    }
  }

  @Test
  void aDamagedIdentityFileStopsStartUpAndSaysHowToRotate() throws Exception {
    Path state = dir.resolve("state");
    try (EmbeddedApiServer first = EmbeddedApiServer.start(state, 0, List.of())) {
      assertThat(first.token()).isNotEmpty();
    }
    Path file = state.resolve(ServerIdentityFile.NAME);
    Files.writeString(file, "{\"certificate\": \"\"");
    assertThatThrownBy(() -> EmbeddedApiServer.start(state, 0, List.of()))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("--rotate-credentials");
    assertThat(Files.readString(file)).isEqualTo("{\"certificate\": \"\"");
    try (EmbeddedApiServer rotated =
        EmbeddedApiServer.start(state, 0, List.of(), true, ServerLimits.defaults())) {
      assertThat(kubectl(rotated.kubeconfig()).run("get", "namespace", "default").exitCode())
          .isZero();
    }
  }
}
