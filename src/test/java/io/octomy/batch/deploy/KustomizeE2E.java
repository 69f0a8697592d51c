package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * `kubectl kustomize manifests/` builds, and holds the chart's objects, the CRDs and the namespace.
 */
class KustomizeE2E {

  @Test
  void kustomizeBuildEqualsTheChartsDefaultRenderPlusCrdsAndNamespace() throws Exception {
    Map<String, JsonNode> built = new LinkedHashMap<>();
    Chart.parseAll(kustomize()).forEach(o -> built.put(Chart.key(o), o));

    Map<String, JsonNode> expected = new LinkedHashMap<>(Chart.defaults().byKey());
    for (String crd : Chart.yamlFiles(Chart.TOP_CRDS)) {
      JsonNode o = Chart.parseAll(Chart.read(Chart.TOP_CRDS.resolve(crd))).get(0);
      expected.put(Chart.key(o), o);
    }
    JsonNode ns = Chart.parseAll(Chart.read(Manifests.ROOT.resolve("namespace.yaml"))).get(0);
    expected.put(Chart.key(ns), ns);

    assertThat(built.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    expected.forEach((key, object) -> assertThat(built.get(key)).as(key).isEqualTo(object));
  }

  @Test
  void theNamespaceIsTheOneTheObjectsAreRenderedInto() {
    JsonNode ns = Chart.parseAll(Chart.read(Manifests.ROOT.resolve("namespace.yaml"))).get(0);
    assertThat(ns.at("/metadata/name").asText()).isEqualTo(Chart.NAMESPACE);
    // The agent's hostPath volumes are refused below "privileged".
    assertThat(ns.at("/metadata/labels/pod-security.kubernetes.io~1enforce").asText())
        .isEqualTo("privileged");
  }

  @Test
  void theWithoutAgentPolicyComponentLeavesOutThePolicyAndNothingElse() throws Exception {
    Map<String, JsonNode> whole = build(Manifests.ROOT);
    Map<String, JsonNode> without = build(overlayWith("without-agent-policy"));

    Map<String, JsonNode> expected = new LinkedHashMap<>(whole);
    assertThat(expected.keySet().removeIf(k -> k.contains("ValidatingAdmissionPolicy")))
        .as("the base holds the policy")
        .isTrue();
    assertThat(without).isEqualTo(expected);
  }

  @Test
  void theWithoutVisibilityComponentLeavesOutTheApiServiceItsServiceAndTheWebhook()
      throws Exception {
    Map<String, JsonNode> whole = build(Manifests.ROOT);
    Map<String, JsonNode> without = build(overlayWith("without-visibility"));

    Map<String, JsonNode> expected = new LinkedHashMap<>(whole);
    List<String> left = new ArrayList<>();
    for (String key : whole.keySet()) {
      if (key.contains("APIService")
          || key.contains("octomy-batch-visibility")
          || key.contains("MutatingWebhookConfiguration")) {
        left.add(key);
      }
    }
    assertThat(left).as("the base holds them").hasSize(3);
    left.forEach(expected::remove);
    assertThat(without).isEqualTo(expected);
  }

  private static Map<String, JsonNode> build(Path dir) throws Exception {
    Map<String, JsonNode> objects = new LinkedHashMap<>();
    Chart.parseAll(kustomize(dir)).forEach(o -> objects.put(Chart.key(o), o));
    return objects;
  }

  /** An overlay of manifests/ with one of its components. */
  private static Path overlayWith(String component) throws IOException {
    // kustomize takes only relative paths to a base or a component.
    Path overlay =
        Files.createTempDirectory(Files.createDirectories(Path.of("target")), "overlay")
            .toAbsolutePath();
    Path root = Manifests.ROOT.toAbsolutePath();
    Files.writeString(
        overlay.resolve("kustomization.yaml"),
        """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources: [%s]
        components: [%s]
        """
            .formatted(
                overlay.relativize(root),
                overlay.relativize(root.resolve("components/" + component))));
    return overlay;
  }

  private static String kustomize() throws IOException, InterruptedException {
    return kustomize(Manifests.ROOT);
  }

  private static String kustomize(Path dir) throws IOException, InterruptedException {
    String kubectl = onPath("kubectl");
    assertThat(kubectl)
        .as("kubectl on the PATH: the kustomize build is checked with it")
        .isNotNull();
    Path out = Files.createTempFile("kustomize", ".yaml");
    Process p =
        new ProcessBuilder(List.of(kubectl, "kustomize", dir.toString()))
            .redirectOutput(out.toFile())
            .redirectErrorStream(false)
            .start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl kustomize finishes").isTrue();
    assertThat(p.exitValue()).as("kubectl kustomize %s: %s", dir, err).isZero();
    String yaml = Files.readString(out);
    Files.delete(out);
    return yaml;
  }

  private static String onPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, name);
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    return null;
  }
}
