package io.octomy.batch.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.vocabulary.Quantities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Build step that runs right after fabric8's CRD generator and finishes what it cannot express:
 *
 * <ul>
 *   <li>printer columns in the order they are declared on the class (the generator sorts them by
 *       JSONPath, which would put AGE first);
 *   <li>every quantity map's values as {@code integer}, {@code format: int64}, {@code minimum: 0},
 *       {@code maximum:} {@link Quantities#MAX} (the generator has no way to annotate a map's value
 *       type);
 *   <li>every other integer's range as the Java type that reads it ({@link WholeNumberBounds});
 *   <li>descriptions from the API types' Javadoc (see {@link JavadocDescriptions}), so {@code
 *       kubectl explain} says what the Javadoc says;
 *   <li>the types of the fields of a BatchJob's template that a Process node starts a process with
 *       ({@link LaunchFieldsSchema}).
 * </ul>
 *
 * <p>It rewrites the generated files in place and writes the result to the given folders ({@code
 * crds/} is compared against it by a test, so a stale committed copy fails the build).
 */
public final class CrdFinisher {

  /** Every kind we generate a CRD for, with the file name the generator gives it. */
  public static final Map<String, Class<?>> KINDS =
      Map.of(
          "batchjobs.batch.octomy.io", BatchJob.class,
          "batchnodes.batch.octomy.io", BatchNode.class,
          "batchjobprofiles.batch.octomy.io", BatchJobProfile.class,
          "batchqueues.batch.octomy.io", BatchQueue.class);

  private static final ObjectMapper YAML =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .disable(YAMLGenerator.Feature.SPLIT_LINES));

  private CrdFinisher() {}

  /** Args: the generator's output folder, and the Java source root (for the Javadoc). */
  public static void main(String[] args) throws IOException {
    Path generated = Path.of(args[0]);
    JavadocDescriptions docs = new JavadocDescriptions(Path.of(args[1]));
    for (Map.Entry<String, Class<?>> e : KINDS.entrySet()) {
      Path file = generated.resolve(e.getKey() + "-v1.yml");
      JsonNode crd = YAML.readTree(file.toFile());
      finish((ObjectNode) crd, e.getValue(), docs);
      Files.writeString(file, YAML.writeValueAsString(crd));
    }
  }

  /** Applies every finishing step to one parsed CRD. */
  static void finish(ObjectNode crd, Class<?> kind, JavadocDescriptions docs) {
    ObjectNode version = (ObjectNode) crd.path("spec").path("versions").get(0);
    orderPrinterColumns(version, kind);
    ObjectNode schema = (ObjectNode) version.path("schema").path("openAPIV3Schema");
    docs.describe(schema, kind);
    boundQuantityMaps(schema);
    WholeNumberBounds.bound(schema, kind);
    wholeBounds(schema);
    if (kind == BatchJob.class) {
      LaunchFieldsSchema.type(
          (ObjectNode) schema.path("properties").path("spec").path("properties").path("template"));
    }
  }

  private static void orderPrinterColumns(ObjectNode version, Class<?> kind) {
    JsonNode columns = version.path("additionalPrinterColumns");
    if (!columns.isArray()) {
      return;
    }
    List<JsonNode> ordered = new ArrayList<>();
    for (AdditionalPrinterColumn declared :
        kind.getAnnotationsByType(AdditionalPrinterColumn.class)) {
      for (JsonNode c : columns) {
        if (declared.name().equals(c.path("name").asText())) {
          ordered.add(c);
        }
      }
    }
    if (ordered.size() != columns.size()) {
      throw new IllegalStateException(
          "printer columns of "
              + kind.getSimpleName()
              + " do not match its @AdditionalPrinterColumn annotations");
    }
    ArrayNode replacement = version.arrayNode();
    ordered.forEach(replacement::add);
    version.set("additionalPrinterColumns", replacement);
  }

  /**
   * An integer field's bounds as whole numbers: the generator writes {@code @Min(0)} as {@code
   * 0.0}, and an API server quotes the bound as written in its refusal.
   */
  private static void wholeBounds(JsonNode node) {
    if (node instanceof ObjectNode obj) {
      if ("integer".equals(obj.path("type").asText())) {
        for (String bound : List.of("minimum", "maximum")) {
          JsonNode b = obj.get(bound);
          if (b != null && b.isFloatingPointNumber() && b.asDouble() == Math.rint(b.asDouble())) {
            obj.put(bound, (long) b.asDouble());
          }
        }
      }
      obj.elements().forEachRemaining(CrdFinisher::wholeBounds);
    } else if (node instanceof ArrayNode arr) {
      arr.forEach(CrdFinisher::wholeBounds);
    }
  }

  /**
   * Every map of integers in our API is a map of quantities: whole numbers from 0 to {@link
   * Quantities#MAX}.
   */
  private static void boundQuantityMaps(JsonNode node) {
    if (node instanceof ObjectNode obj) {
      JsonNode values = obj.get("additionalProperties");
      if (values instanceof ObjectNode v && "integer".equals(v.path("type").asText())) {
        v.put("format", "int64");
        v.put("minimum", 0);
        v.put("maximum", Quantities.MAX);
      }
      for (Iterator<JsonNode> it = obj.elements(); it.hasNext(); ) {
        boundQuantityMaps(it.next());
      }
    } else if (node instanceof ArrayNode arr) {
      arr.forEach(CrdFinisher::boundQuantityMaps);
    }
  }
}
