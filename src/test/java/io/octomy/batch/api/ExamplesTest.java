package io.octomy.batch.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.octomy.batch.policy.PolicyLoader;
import io.octomy.batch.vocabulary.ServiceClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The manifests in examples/ are what users copy first: they must be valid and show every class.
 */
class ExamplesTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static List<JsonNode> documents() throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (Stream<Path> files = Files.list(Path.of("examples"))) {
      // Only the folder's own files: `kubectl apply -f examples/` reads those, not subfolders.
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        try (YAMLParser p = (YAMLParser) YAML.getFactory().createParser(f.toFile())) {
          YAML.readValues(p, JsonNode.class).readAll().stream()
              .filter(JsonNode::isObject)
              .forEach(docs::add);
        }
      }
    }
    return docs;
  }

  @Test
  void everyExampleJobIsValidAndTheClassesAreAllShown() throws IOException {
    List<ServiceClass> classes = new ArrayList<>();
    for (JsonNode doc : documents()) {
      if (!doc.path("kind").asText().equals("BatchJob")) {
        continue;
      }
      assertThat(SpecValidator.problems(doc.get("spec")))
          .as(doc.at("/metadata/name").asText())
          .isEmpty();
      BatchJob job = YAML.treeToValue(doc, BatchJob.class);
      Resources r = job.getSpec().getResources();
      classes.add(
          r == null
              ? ServiceClass.of(null, null)
              : ServiceClass.of(r.getRequests(), r.getLimits()));
    }
    assertThat(classes)
        .contains(ServiceClass.Guaranteed, ServiceClass.Burstable, ServiceClass.BestEffort);
  }

  @Test
  void everyFileKubectlApplyReadsInTheFolderIsAnObject() throws IOException {
    // `kubectl apply -f examples/` stops on the first document without apiVersion and kind.
    assertThat(documents())
        .isNotEmpty()
        .allSatisfy(d -> assertThat(d.path("apiVersion").asText()).isNotEmpty())
        .allSatisfy(d -> assertThat(d.path("kind").asText()).isNotEmpty());
  }

  @Test
  void exampleNodeAndPolicyRead() throws IOException {
    assertThat(documents())
        .anySatisfy(d -> assertThat(d.path("kind").asText()).isEqualTo("BatchNode"));
    assertThat(PolicyLoader.load(Path.of("examples/policy/policy.yaml")).maxRunning("preprocess"))
        .isEqualTo(2);
  }
}
