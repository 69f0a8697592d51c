package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import io.octomy.batch.policy.PolicyLoader;
import io.octomy.batch.vocabulary.Policy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policy in values reaches the controller's ConfigMap intact, and a change rolls the pods. */
class PolicyConfigMapTest {

  @TempDir Path tmp;

  @Test
  void defaultPolicyIsTheValuesPolicyAndLoads() throws IOException {
    String text = policyText(Chart.defaults());
    JsonNode fromValues =
        Chart.YAML.readTree(Chart.DIR.resolve("values.yaml").toFile()).path("policy");
    assertThat(Chart.YAML.readTree(text)).isEqualTo(fromValues);
    Policy p = PolicyLoader.parse(text, "values");
    assertThat(p.nodeHeartbeatTimeout()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void aMapPolicyKeepsLargeWholeNumbers() throws IOException {
    // Helm reads numbers in values files as floats; 17179869184 must not become 1.7179869184e+10.
    Path values = tmp.resolve("values.yaml");
    Files.writeString(
        values,
        """
        policy:
          budgets:
            studio: {octomy.io/cpu-milli: 8000, octomy.io/memory-bytes: 17179869184}
          groups:
            simulator: {maxRunning: 2}
        """);
    String text = policyText(render(values));
    Policy p = PolicyLoader.parse(text, "values");
    assertThat(p.budgets().get("studio")).containsEntry("octomy.io/memory-bytes", 17179869184L);
    assertThat(p.maxRunning("simulator")).isEqualTo(2);
  }

  @Test
  void aStringPolicyIsCopiedVerbatim() throws IOException {
    // What `--set-file policy=examples/policy/policy.yaml` does: comments and layout survive.
    String example = Chart.read(Path.of("examples/policy/policy.yaml"));
    Path values = tmp.resolve("values.yaml");
    Files.writeString(values, Chart.WRITER.writeValueAsString(Map.of("policy", example)));
    String text = policyText(render(values));
    assertThat(text.strip()).isEqualTo(example.strip());
    assertThat(PolicyLoader.parse(text, "values").maxRunning("preprocess")).isEqualTo(2);
  }

  @Test
  void changingThePolicyChangesTheChecksumAndNothingElseDoes() {
    String before = checksum(Chart.defaults());
    assertThat(checksum(Chart.template(Map.of("policy.nodeHeartbeatTimeout", "90s"))))
        .isNotEqualTo(before);
    assertThat(checksum(Chart.template(Map.of("image.tag", "0.2.0")))).isEqualTo(before);
  }

  private Chart.Rendered render(Path valuesFile) {
    return new Chart.Rendered(
        Chart.parseAll(
            new Helm(Chart.DIR)
                .template()
                .withName(Chart.RELEASE)
                .withNamespace(Chart.NAMESPACE)
                .withValuesFile(valuesFile)
                .call()));
  }

  static String policyText(Chart.Rendered r) {
    return r.get("ConfigMap", "octomy-batch-policy").at("/data/policy.yaml").asText();
  }

  static String checksum(Chart.Rendered r) {
    return r.controllerPod().at("/metadata/annotations/checksum~1policy").asText();
  }
}
