package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRDs a start is given are installed: a new one is created, a stored one with another spec
 * gets the new spec (a newer product version updates its CRDs), and a stored one with the same spec
 * is left as it is. The store would not write an equal spec either; what a start saves by not
 * sending it (the admission compiling every validation rule of the CRD) is time only, and is in the
 * restart figures of docs/benchmarks.md rather than here.
 */
class BootstrapCrdsIT {

  private static final String SAMPLE_CRD =
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/samples.test.octomy.io";

  @TempDir Path dir;

  @Test
  void aStartWritesOnlyTheCrdsWhoseSpecChanged() throws Exception {
    ObjectNode first = sampleCrd();
    ObjectNode second = first.deepCopy();
    ((ArrayNode) second.at("/spec/names").withArray("categories")).add("octomy-test");

    String created = versionAfterStartWith(first);
    String updated = versionAfterStartWith(second);
    String unchanged = versionAfterStartWith(second);

    assertThat(updated).isNotEqualTo(created);
    assertThat(unchanged).as("the same spec again: left as it is").isEqualTo(updated);
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of())) {
      JsonNode stored = new RawApi(server).get(SAMPLE_CRD).json();
      assertThat(stored.at("/spec/names/categories").toString()).contains("octomy-test");
    }
  }

  private String versionAfterStartWith(JsonNode crd) {
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of(crd))) {
      RawApi.Answer stored = new RawApi(server).get(SAMPLE_CRD);
      assertThat(stored.code()).as(stored.body()).isEqualTo(200);
      return stored.json().at("/metadata/resourceVersion").asText();
    }
  }

  private static ObjectNode sampleCrd() throws Exception {
    return (ObjectNode) TableRendererTest.YAML.readTree(Files.readString(TestCrds.sampleCrd()));
  }
}
