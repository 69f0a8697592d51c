package io.octomy.batch.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.octomy.batch.admission.Reason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CRDs under crds/ are exactly what the build generates, and carry the columns and rules users
 * rely on.
 */
class CommittedCrdsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "batchjobs.batch.octomy.io",
        "batchnodes.batch.octomy.io",
        "batchjobprofiles.batch.octomy.io",
        "batchqueues.batch.octomy.io"
      })
  void committedCopyMatchesTheGeneratedOne(String crd) {
    assertThat(Files.exists(CrdFiles.committed(crd)))
        .as(
            "crds/%s.yaml is missing; copy target/classes/META-INF/fabric8/%s-v1.yml there",
            crd, crd)
        .isTrue();
    assertThat(CrdFiles.read(CrdFiles.committed(crd)))
        .as(
            "crds/%s.yaml differs from the generated CRD; copy target/classes/META-INF/fabric8/%s-v1.yml over it",
            crd, crd)
        .isEqualTo(CrdFiles.generated(crd));
  }

  /** `kubectl explain bj.status.reason` is where a user looks up a reason the pass gave. */
  @Test
  void theReasonFieldNamesEveryReasonThePassGives() {
    String described =
        CrdFiles.parse(CrdFiles.generated("batchjobs.batch.octomy.io"))
            .at(
                "/spec/versions/0/schema/openAPIV3Schema/properties/status/properties/reason/description")
            .asText();
    for (Reason reason : Reason.values()) {
      assertThat(described).as("status.reason's description").contains(reason.code());
    }
  }

  @Test
  void batchJobColumnsAreInTheOrderKubectlShows() {
    JsonNode version =
        CrdFiles.parse(CrdFiles.generated("batchjobs.batch.octomy.io")).at("/spec/versions/0");
    List<String> normal = new ArrayList<>();
    List<String> wide = new ArrayList<>();
    version
        .path("additionalPrinterColumns")
        .forEach(
            c -> (c.path("priority").asInt() == 0 ? normal : wide).add(c.path("name").asText()));
    assertThat(normal).containsExactly("CLASS", "PHASE", "NODE", "REASON", "AGE");
    assertThat(wide).containsExactly("PRIORITY", "FAILED-RUNS", "ITEMS", "REPLICAS", "MESSAGE");
    assertThat(version.path("subresources").has("status")).isTrue();
  }

  @Test
  void nodeAndProfileColumns() {
    assertThat(columnNames("batchnodes.batch.octomy.io"))
        .startsWith("MODE", "OWN-MODE", "EXECUTOR", "READY", "AGE");
    assertThat(columnNames("batchjobprofiles.batch.octomy.io"))
        .containsExactly("RUNS", "OVER-LIMIT", "WASTE", "AGE");
  }

  @Test
  void queueColumnsAndItsScopeAndShortName() {
    JsonNode crd = CrdFiles.parse(CrdFiles.generated("batchqueues.batch.octomy.io"));
    assertThat(columnNames("batchqueues.batch.octomy.io"))
        .containsExactly("WEIGHT", "USAGE", "SHARE", "PENDING", "ADMITTED", "AGE");
    assertThat(crd.at("/spec/scope").asText()).isEqualTo("Cluster");
    assertThat(crd.at("/spec/names/shortNames/0").asText()).isEqualTo("bq");
    JsonNode spec = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties");
    assertThat(spec.at("/weight/minimum").asInt()).isEqualTo(1);
    assertThat(spec.at("/weight/default").asInt()).isEqualTo(1);
    assertThat(spec.at("/weight/type").asText()).isEqualTo("integer");
    assertThat(spec.at("/max/additionalProperties/type").asText()).isEqualTo("integer");
    assertThat(spec.at("/min/additionalProperties/minimum").asInt()).isZero();
  }

  @Test
  void quantitiesAreWholeNonNegative64BitNumbers() {
    JsonNode requests =
        CrdFiles.parse(CrdFiles.generated("batchjobs.batch.octomy.io"))
            .at(
                "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/resources/properties/requests");
    assertThat(requests.at("/additionalProperties/type").asText()).isEqualTo("integer");
    assertThat(requests.at("/additionalProperties/format").asText()).isEqualTo("int64");
    assertThat(requests.at("/additionalProperties/minimum").asInt()).isZero();
    assertThat(requests.path("maxProperties").asInt()).isEqualTo(32);
  }

  @Test
  void enumsForModeExecutorAndPhase() {
    JsonNode node =
        CrdFiles.parse(CrdFiles.generated("batchnodes.batch.octomy.io"))
            .at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties");
    assertThat(node.at("/mode/enum").toString())
        .contains("Interactive", "Background", "Drone", "Off");
    assertThat(node.at("/executor/enum").toString()).contains("Pod", "Process");
    JsonNode phase =
        CrdFiles.parse(CrdFiles.generated("batchjobs.batch.octomy.io"))
            .at("/spec/versions/0/schema/openAPIV3Schema/properties/status/properties/phase/enum");
    assertThat(phase.size()).isEqualTo(7);
  }

  @Test
  void batchJobCrdFitsTheLastAppliedAnnotation() {
    // kubectl apply stores the whole object in an annotation limited to 262,144 bytes.
    byte[] json =
        CrdFiles.parse(CrdFiles.generated("batchjobs.batch.octomy.io"))
            .toString()
            .getBytes(StandardCharsets.UTF_8);
    assertThat(json.length).isLessThan(262_144);
  }

  private static List<String> columnNames(String crd) {
    List<String> names = new ArrayList<>();
    CrdFiles.parse(CrdFiles.generated(crd))
        .at("/spec/versions/0/additionalPrinterColumns")
        .forEach(c -> names.add(c.path("name").asText()));
    return names;
  }

  /** Javadoc is the documentation: every field of our types reaches kubectl explain. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "batchjobs.batch.octomy.io",
        "batchnodes.batch.octomy.io",
        "batchjobprofiles.batch.octomy.io",
        "batchqueues.batch.octomy.io"
      })
  void everyFieldOfOurTypesHasItsJavadocAsDescription(String crd) {
    JsonNode root =
        CrdFiles.parse(CrdFiles.generated(crd)).at("/spec/versions/0/schema/openAPIV3Schema");
    assertThat(root.path("description").asText()).as("%s kind description", crd).isNotBlank();
    List<String> missing = new ArrayList<>();
    undescribed(root, "", missing);
    assertThat(missing).as("properties without a description in %s", crd).isEmpty();
  }

  private static void undescribed(JsonNode schema, String path, List<String> missing) {
    schema
        .path("properties")
        .fields()
        .forEachRemaining(
            p -> {
              String at = path + "." + p.getKey();
              if (at.equals(".metadata") || at.equals(".apiVersion") || at.equals(".kind")) {
                return; // Kubernetes' own
              }
              boolean emptySpec =
                  at.equals(".spec")
                      && !p.getValue().has("properties"); // BatchJobProfile has no spec
              if (p.getValue().path("description").asText().isBlank() && !emptySpec) {
                missing.add(at);
              }
              if (!p.getKey()
                  .equals(
                      "conditions")) { // fabric8's Condition type: Kubernetes' documented fields
                undescribed(p.getValue(), at, missing);
                undescribed(p.getValue().path("items"), at + "[]", missing);
                undescribed(p.getValue().path("additionalProperties"), at + "{}", missing);
              }
            });
  }
}
