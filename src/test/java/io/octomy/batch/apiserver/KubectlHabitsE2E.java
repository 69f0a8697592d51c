package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubectl habits learnt on a cluster that work on standalone too, with stock kubectl: {@code auth
 * can-i}, {@code can-i --list} and {@code auth whoami} for the one user; {@code apply --prune} with
 * kubectl's default allow-list; {@code kubectl diff} of what a server-side apply created; the
 * product's CRDs applied again, as a GitOps repository holding the chart does. The whole session
 * against the real server is {@code KubectlSessionE2E}.
 */
class KubectlHabitsE2E {

  @TempDir Path dir;

  @Test
  void theOneUserMayDoEverythingAndSaysWhoItIs() {
    try (EmbeddedApiServer api =
        EmbeddedApiServer.start(dir.resolve("state"), 0, StandaloneRuntime.productCrds())) {
      for (String binary : Kubectl.versions()) {
        Kubectl kubectl = new Kubectl(binary, api.kubeconfig(), dir.resolve("home"));
        Kubectl.Result create = kubectl.run("auth", "can-i", "create", "batchjobs");
        assertThat(create.exitCode()).as(binary + ": " + create.all()).isZero();
        assertThat(create.out().strip()).isEqualTo("yes");
        Kubectl.Result delete = kubectl.run("auth", "can-i", "delete", "bn", "--all-namespaces");
        assertThat(delete.out().strip()).as(binary + ": " + delete.all()).isEqualTo("yes");
        Kubectl.Result list = kubectl.run("auth", "can-i", "--list", "-n", "default");
        assertThat(list.exitCode()).as(binary + ": " + list.all()).isZero();
        assertThat(list.out()).contains("*.*").contains("[*]");
      }
      Kubectl newest =
          new Kubectl(Kubectl.versions().get(0), api.kubeconfig(), dir.resolve("home"));
      Kubectl.Result who =
          newest.run(
              "auth",
              "whoami",
              "-o",
              "jsonpath={.status.userInfo.username} {.status.userInfo.groups}");
      assertThat(who.exitCode()).as(who.all()).isZero();
      assertThat(who.out())
          .isEqualTo(AccessReviews.USER + " [\"system:masters\",\"system:authenticated\"]");
    }
  }

  @Test
  void applyPruneWithTheDefaultAllowListDeletesWhatLeftTheDirectory() throws Exception {
    Path app = Files.createDirectories(dir.resolve("app"));
    Files.writeString(
        app.resolve("settings.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, labels: {app: x}}\n"
            + "data: {k: v}\n");
    Files.writeString(
        app.resolve("other.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, labels: {app: x}}\n"
            + "data: {k: v}\n");
    try (EmbeddedApiServer api = EmbeddedApiServer.start(dir.resolve("state"), 0, List.of())) {
      Kubectl kubectl =
          new Kubectl(Kubectl.versions().get(0), api.kubeconfig(), dir.resolve("home"));
      assertThat(kubectl.run("apply", "-f", app.toString()).exitCode()).isZero();
      Files.delete(app.resolve("settings.yaml"));
      Kubectl.Result prune =
          kubectl.run("apply", "-n", "default", "-f", app.toString(), "--prune", "-l", "app=x");
      assertThat(prune.exitCode()).as(prune.all()).isZero();
      assertThat(prune.out()).contains("configmap/settings pruned");
      assertThat(prune.err())
          .contains("v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice");
      assertThat(kubectl.run("get", "configmaps", "-o", "name").out())
          .contains("configmap/other")
          .doesNotContain("configmap/settings");
      Kubectl.Result deployment = kubectl.run("create", "deployment", "web", "--image=nginx");
      assertThat(deployment.exitCode()).isNotZero();
      assertThat(deployment.err()).contains("standalone mode runs no Deployments");
    }
  }

  /**
   * A real server leaves out empty labels, annotations, finalizers and owner references (checked on
   * v1.34.4): {@code kubectl diff} of a manifest that a server-side apply created (kubectl's diff
   * sends {@code annotations: {}}) shows no drift, and a patch that only empties them is no change.
   */
  @Test
  void emptyMetadataIsLeftOutSoDiffShowsNoDriftAfterAServerSideApply() throws Exception {
    Path job = dir.resolve("job.yaml");
    Files.writeString(
        job,
        """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: drift, labels: {app: x}}
        spec:
          resources:
            requests: {octomy.io/cpu-milli: 100}
          template:
            spec:
              containers: [{name: main, image: unused, command: [sh, -c, 'true']}]
        """);
    try (EmbeddedApiServer api =
        EmbeddedApiServer.start(dir.resolve("state"), 0, StandaloneRuntime.productCrds())) {
      Kubectl kubectl =
          new Kubectl(Kubectl.versions().get(0), api.kubeconfig(), dir.resolve("home"));
      Kubectl.Result applied =
          kubectl.run(
              "apply", "--server-side", "--field-manager=argocd-controller", "-f", job.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();

      Kubectl.Result diff = kubectl.run("diff", "-f", job.toString());
      assertThat(diff.exitCode()).as(diff.all()).isZero();
      assertThat(diff.out()).isEmpty();

      assertThat(kubectl.run("label", "bj", "drift", "app-").exitCode()).isZero();
      Kubectl.Result patched =
          kubectl.run(
              "patch",
              "bj",
              "drift",
              "--type=merge",
              "-p",
              "{\"metadata\":{\"annotations\":{},\"ownerReferences\":[]}}");
      assertThat(patched.out()).as(patched.all()).contains("patched (no change)");
      Kubectl.Result meta = kubectl.run("get", "bj", "drift", "-o", "jsonpath={.metadata}");
      assertThat(meta.out())
          .doesNotContain("\"labels\"")
          .doesNotContain("\"annotations\"")
          .doesNotContain("\"ownerReferences\"");
    }
  }

  /**
   * A repository that holds the chart applies the CRDs too: client-side and server-side, over the
   * ones standalone installed. Their maps are declared with {@code additionalProperties}, which
   * standalone's model of a CRD lacked (strict decoding error: unknown field).
   */
  @Test
  void theProductsCrdsApplyOverTheInstalledOnes() {
    try (EmbeddedApiServer api =
        EmbeddedApiServer.start(dir.resolve("state"), 0, StandaloneRuntime.productCrds())) {
      Kubectl kubectl =
          new Kubectl(Kubectl.versions().get(0), api.kubeconfig(), dir.resolve("home"));
      Kubectl.Result clientSide = kubectl.run("apply", "-f", "crds");
      assertThat(clientSide.exitCode()).as(clientSide.all()).isZero();
      assertThat(clientSide.err()).doesNotContain("unknown field");
      Kubectl.Result serverSide =
          kubectl.run("apply", "--server-side", "--field-manager=argocd-controller", "-f", "crds");
      assertThat(serverSide.exitCode()).as(serverSide.all()).isZero();
      assertThat(serverSide.out()).contains("batchjobs.batch.octomy.io serverside-applied");
      Kubectl.Result diff = kubectl.run("diff", "-f", "crds");
      assertThat(diff.exitCode()).as(diff.all()).isZero();
    }
  }
}
