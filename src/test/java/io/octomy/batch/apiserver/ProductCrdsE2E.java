package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The product's own CRDs (crds/) and examples (examples/), served to the default kubectl: the
 * BatchJob and BatchNode columns, -o wide, patching a node's mode, and manifests refused by the
 * CRDs' CEL rules.
 */
class ProductCrdsE2E {

  static final ResourceDefinitionContext JOBS =
      new ResourceDefinitionContext.Builder()
          .withGroup("batch.octomy.io")
          .withVersion("v1alpha1")
          .withPlural("batchjobs")
          .withKind("BatchJob")
          .withNamespaced(true)
          .build();

  @TempDir static Path dir;

  static EmbeddedApiServer server;
  static KubernetesClient client;
  static Kubectl kubectl;

  @BeforeAll
  static void start() throws Exception {
    assertThat(Kubectl.versions())
        .as("kubectl on the PATH (the end-to-end tests drive it)")
        .isNotEmpty();
    server =
        EmbeddedApiServer.start(dir.resolve("state"), 0, new ArrayList<>(TestCrds.productCrds()));
    client = new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
    kubectl =
        new Kubectl(
            Kubectl.versions().get(0),
            server.kubeconfig(),
            Files.createDirectories(dir.resolve("home")));
    Kubectl.Result applied =
        kubectl.run(
            "apply",
            "-f",
            "examples/job-guaranteed.yaml",
            "-f",
            "examples/node-workstation.yaml",
            "-f",
            "examples/pipeline.yaml");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
      server.close();
    }
  }

  @Test
  void batchJobColumnsShowTheDecision() {
    GenericKubernetesResource job =
        client
            .genericKubernetesResources(JOBS)
            .inNamespace("default")
            .withName("solve-ernie")
            .get();
    job.setAdditionalProperty(
        "status",
        Map.of(
            "phase",
            "Admitted",
            "serviceClass",
            "Guaranteed",
            "node",
            "ws-7",
            "reason",
            "Admitted",
            "effectivePriority",
            210,
            "message",
            "admitted on ws-7"));
    client.genericKubernetesResources(JOBS).inNamespace("default").resource(job).patchStatus();

    List<String> lines = kubectl.run("get", "bj").out().lines().toList();
    assertThat(lines.get(0))
        .containsSubsequence("NAME", "CLASS", "PHASE", "NODE", "REASON", "AGE")
        .doesNotContain("PRIORITY");
    assertThat(lines)
        .anyMatch(
            l -> l.matches("solve-ernie\\s+Guaranteed\\s+Admitted\\s+ws-7\\s+Admitted\\s+\\S+"));
    assertThat(lines).anyMatch(l -> l.startsWith("preprocess-41 "));

    String wide = kubectl.run("get", "bj", "solve-ernie", "-o", "wide").out();
    assertThat(wide)
        .containsSubsequence("PRIORITY", "MESSAGE")
        .containsPattern("210\\s+admitted on ws-7");

    assertThat(
            kubectl
                .run(
                    "get",
                    "bj",
                    "solve-ernie",
                    "-o",
                    "jsonpath={.spec.template.spec.containers[0].image}")
                .out())
        .as("template keeps its fields (preserve-unknown-fields)")
        .isEqualTo("busybox:1.36");
    assertThat(kubectl.run("describe", "bj", "solve-ernie").out())
        .containsPattern("Service Class:\\s+Guaranteed");
  }

  @Test
  void batchNodesAreClusterScopedAndTheirModeCanBePatched() {
    List<String> lines = kubectl.run("get", "bn").out().lines().toList();
    assertThat(lines.get(0))
        .containsSubsequence("NAME", "MODE", "OWN-MODE", "EXECUTOR", "READY", "AGE");
    assertThat(lines.get(1)).matches("ws-7\\s+Interactive\\s+Drone\\s+Process\\s+\\S+");
    assertThat(
            kubectl
                .run(
                    "patch",
                    "bn",
                    "ws-7",
                    "--type=merge",
                    "-p",
                    "{\"spec\":{\"mode\":\"Background\"}}")
                .out())
        .contains("patched");
    assertThat(kubectl.run("get", "bn", "ws-7").out())
        .containsPattern("ws-7\\s+Background\\s+Drone");
    Kubectl.Result badMode =
        kubectl.run("patch", "bn", "ws-7", "--type=merge", "-p", "{\"spec\":{\"mode\":\"Turbo\"}}");
    assertThat(badMode.exitCode()).isNotZero();
    assertThat(badMode.err()).contains("spec.mode: Unsupported value: \"Turbo\"");
    assertThat(kubectl.run("get", "bjp").all()).contains("No resources found");
  }

  @Test
  void badJobsAreRefusedWithTheRulesMessages() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(
        bad,
        """
                apiVersion: batch.octomy.io/v1alpha1
                kind: BatchJob
                metadata: {name: greedy}
                spec:
                  resources:
                    requests: {octomy.io/cpu-milli: 4000}
                    limits: {octomy.io/cpu-milli: 2000}
                  template: {spec: {containers: [{name: main, image: busybox}]}}
                ---
                apiVersion: batch.octomy.io/v1alpha1
                kind: BatchJob
                metadata: {name: nodomain}
                spec:
                  resources:
                    requests: {cfd-cores: 4}
                  template: {spec: {containers: [{name: main, image: busybox}]}}
                """);
    Kubectl.Result result = kubectl.run("apply", "-f", bad.toString());
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err())
        .contains("a request is above its limit")
        .contains("resource name 'cfd-cores' has no domain; write it as example.com/cfd-cores");
    assertThat(
            client.genericKubernetesResources(JOBS).inNamespace("default").withName("greedy").get())
        .isNull();
  }
}
