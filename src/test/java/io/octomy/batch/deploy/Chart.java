package io.octomy.batch.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** The Helm chart under helm/octomy-batch, rendered with real Helm (helm-java) and parsed. */
final class Chart {

  static final Path DIR = Path.of("helm/octomy-batch");
  static final Path TOP_CRDS = Path.of("crds");
  static final Path CHART_CRDS = DIR.resolve("crds");

  /** The release the committed manifests are rendered as. */
  static final String RELEASE = "octomy-batch";

  static final String NAMESPACE = "octomy-system";

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private Chart() {}

  /** helm template with the default values plus the given --set pairs. */
  static String templateText(Map<String, Object> set) {
    TemplateCommand cmd = new Helm(DIR).template().withName(RELEASE).withNamespace(NAMESPACE);
    set.forEach(cmd::set);
    return cmd.call();
  }

  static Rendered template(Map<String, Object> set) {
    return new Rendered(parseAll(templateText(set)));
  }

  static Rendered defaults() {
    return template(Map.of());
  }

  /** Every non-empty document of a multi-document YAML text. */
  static List<JsonNode> parseAll(String yaml) {
    try (var parser = YAML.createParser(yaml)) {
      List<JsonNode> docs = new ArrayList<>();
      YAML.readValues(parser, JsonNode.class)
          .forEachRemaining(
              d -> {
                if (d != null && d.isObject() && d.size() > 0) {
                  docs.add(d);
                }
              });
      return docs;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** File names (not paths) of the YAML files directly in a folder, sorted. */
  static List<String> yamlFiles(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** kind/namespace/name, the identity of an object in a render. */
  static String key(JsonNode o) {
    return o.path("kind").asText()
        + "/"
        + o.at("/metadata/namespace").asText("")
        + "/"
        + o.at("/metadata/name").asText();
  }

  /** The objects of one render. */
  record Rendered(List<JsonNode> objects) {

    List<JsonNode> ofKind(String kind) {
      return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
    }

    Optional<JsonNode> find(String kind, String name) {
      return ofKind(kind).stream()
          .filter(o -> name.equals(o.at("/metadata/name").asText()))
          .findFirst();
    }

    JsonNode get(String kind, String name) {
      return find(kind, name)
          .orElseThrow(
              () ->
                  new AssertionError(
                      "no "
                          + kind
                          + " "
                          + name
                          + " in the render; have "
                          + objects.stream().map(Chart::key).toList()));
    }

    Map<String, JsonNode> byKey() {
      Map<String, JsonNode> m = new LinkedHashMap<>();
      objects.forEach(o -> m.put(key(o), o));
      return m;
    }

    JsonNode controllerPod() {
      return get("Deployment", "octomy-batch-controller").at("/spec/template");
    }

    JsonNode agentPod() {
      return get("DaemonSet", "octomy-batch-agent").at("/spec/template");
    }
  }

  static final YAMLMapper WRITER = new YAMLMapper();
}
