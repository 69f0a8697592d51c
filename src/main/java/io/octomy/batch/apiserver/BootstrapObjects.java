package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the embedded server holds before anyone asks: the {@code default} namespace and the
 * product's CRDs. Both are written through the router, as a client would write them, so they pass
 * the same validation and reach watches and the registry the same way.
 */
final class BootstrapObjects {

  private BootstrapObjects() {}

  static void ensureNamespace(ApiRouter router, String name) {
    ApiResponse r =
        router.handle(
            new ApiRequest(
                "POST",
                "/api/v1/namespaces",
                Map.of(),
                "",
                "application/json",
                ("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                        + name
                        + "\"}}")
                    .getBytes(StandardCharsets.UTF_8)));
    if (r.status() != 201 && r.status() != 409) {
      throw new IllegalStateException("cannot create namespace " + name + ": " + text(r));
    }
  }

  /**
   * Creates a CRD, or replaces the spec of the stored one (so a newer product version updates its
   * CRDs). A stored CRD whose spec is already this one is left as it is: a write would change
   * nothing, and its admission compiled every validation rule of the CRD again at each start (half
   * a second or more on a cold JVM, before the server could listen).
   */
  static void install(ApiRouter router, ObjectMapper json, JsonNode crd) throws IOException {
    String name = crd.path("metadata").path("name").asText();
    String base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    ApiResponse stored =
        router.handle(
            new ApiRequest(
                "GET", base + "/" + name, Map.of(), "", "application/json", new byte[0]));
    if (stored.status() == 200
        && json.readTree(stored.bytes()).path("spec").equals(crd.path("spec"))) {
      return;
    }
    byte[] body = bytes(json, crd);
    ApiResponse r =
        router.handle(new ApiRequest("POST", base, Map.of(), "", "application/json", body));
    if (r.status() == 409) {
      ObjectNode patch = json.createObjectNode();
      patch.set("spec", crd.path("spec"));
      r =
          router.handle(
              new ApiRequest(
                  "PATCH",
                  base + "/" + name,
                  Map.of(),
                  "",
                  Patches.MERGE_PATCH,
                  bytes(json, patch)));
    }
    if (r.status() >= 300) {
      throw new IllegalArgumentException(
          "cannot install CustomResourceDefinition " + name + ": " + text(r));
    }
  }

  static List<JsonNode> toTrees(List<?> crds, ObjectMapper json, ObjectMapper yaml)
      throws IOException {
    List<JsonNode> trees = new ArrayList<>();
    for (Object crd : crds) {
      if (crd instanceof Path file) {
        trees.addAll(readYaml(Files.readString(file), yaml));
      } else if (crd instanceof String text) {
        trees.addAll(readYaml(text, yaml));
      } else if (crd instanceof JsonNode node) {
        trees.add(node);
      } else {
        trees.add(json.valueToTree(crd));
      }
    }
    return trees;
  }

  private static List<JsonNode> readYaml(String text, ObjectMapper yaml) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = yaml.readerFor(JsonNode.class).readValues(text)) {
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc != null && doc.isObject() && doc.size() > 0) {
          docs.add(doc);
        }
      }
    }
    return docs;
  }

  private static byte[] bytes(ObjectMapper json, JsonNode node) {
    try {
      return json.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String text(ApiResponse r) {
    return new String(r.bytes(), StandardCharsets.UTF_8);
  }
}
