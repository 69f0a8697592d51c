package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Server-side printing: answers {@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io} with a
 * {@code meta.k8s.io/v1 Table} built from the CRD's {@code additionalPrinterColumns} (for built-in
 * kinds, the real server's own columns: {@link CoreTables}), as the real API server does; that is
 * what makes {@code kubectl get bj} show the columns and {@code -o wide} add the priority-1 ones
 * (kubectl hides priority > 0 columns otherwise).
 */
final class TableRenderer {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final Clock clock;
  private final CoreTables coreTables;
  private final Map<String, SimpleJsonPath> paths = new ConcurrentHashMap<>();

  TableRenderer(Clock clock) {
    this.clock = clock;
    this.coreTables = new CoreTables(clock);
  }

  /** Whether a client asked for a Table (kubectl get does, listing JSON as its fallback). */
  static boolean wantsTable(String accept) {
    return accept != null && accept.contains("as=Table");
  }

  /**
   * @param includeObject the request's {@code includeObject}: {@code None}, {@code Object} or
   *     (default) {@code Metadata}
   */
  ObjectNode table(
      ResourceType type,
      String version,
      List<ObjectNode> objects,
      String includeObject,
      long resourceVersion) {
    List<CoreTables.Column> columns = columns(type, version);
    ObjectNode table = F.objectNode();
    table.put("kind", "Table").put("apiVersion", "meta.k8s.io/v1");
    table.putObject("metadata").put("resourceVersion", Long.toString(resourceVersion));
    ArrayNode defs = table.putArray("columnDefinitions");
    columns.forEach(
        c -> defs.add(column(c.name(), c.type(), c.format(), c.priority(), null, c.description())));
    ArrayNode rows = table.putArray("rows");
    for (ObjectNode object : objects) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      for (CoreTables.Column column : columns) {
        cells.add(column.cell().apply(object));
      }
      if ("Object".equals(includeObject)) {
        row.set("object", object);
      } else if (!"None".equals(includeObject)) {
        ObjectNode partial = row.putObject("object");
        partial.put("kind", "PartialObjectMetadata").put("apiVersion", "meta.k8s.io/v1");
        partial.set("metadata", object.path("metadata"));
      }
    }
    return table;
  }

  /**
   * A custom resource's columns: Name, then its CRD's printer columns (or Age when it has none); a
   * built-in kind's are the real server's ({@link CoreTables}).
   */
  private List<CoreTables.Column> columns(ResourceType type, String version) {
    JsonNode custom = type.printerColumns().get(version);
    if (!type.isCustom() && (custom == null || custom.size() == 0)) {
      Optional<List<CoreTables.Column>> core = coreTables.columns(type.kind());
      if (core.isPresent()) {
        return core.get();
      }
    }
    if (custom == null || custom.size() == 0) {
      // what the real server prints for a CRD without printer columns
      custom =
          F.arrayNode()
              .add(
                  column(
                      "Age",
                      "date",
                      "",
                      0,
                      ".metadata.creationTimestamp",
                      "CreationTimestamp is a timestamp representing the server time when this object"
                          + " was created."));
    }
    List<CoreTables.Column> columns = new ArrayList<>();
    columns.add(CoreTables.name());
    for (JsonNode c : custom) {
      ObjectNode definition =
          column(
              c.path("name").asText(),
              c.path("type").asText("string"),
              c.path("format").asText(""),
              c.path("priority").asInt(0),
              c.path("jsonPath").asText(),
              c.path("description").asText(""));
      columns.add(
          new CoreTables.Column(
              definition.path("name").asText(),
              definition.path("type").asText(),
              definition.path("format").asText(),
              definition.path("priority").asInt(),
              definition.path("description").asText(),
              o -> cell(definition, (ObjectNode) o)));
    }
    return columns;
  }

  private static ObjectNode column(
      String name, String type, String format, int priority, String jsonPath, String description) {
    ObjectNode c = F.objectNode();
    c.put("name", name)
        .put("type", type)
        .put("format", format)
        .put("description", description)
        .put("priority", priority);
    if (jsonPath != null) {
      c.put("jsonPath", jsonPath);
    }
    return c;
  }

  private JsonNode cell(ObjectNode column, ObjectNode object) {
    List<JsonNode> found;
    try {
      found =
          paths
              .computeIfAbsent(column.path("jsonPath").asText(), SimpleJsonPath::parse)
              .find(object);
    } catch (IllegalArgumentException e) {
      return F.nullNode();
    }
    if (found.isEmpty()) {
      return F.nullNode();
    }
    JsonNode value = found.get(0);
    switch (column.path("type").asText()) {
      case "date" -> {
        try {
          return F.textNode(
              HumanDuration.format(
                  Duration.between(Instant.parse(value.asText()), clock.instant())));
        } catch (DateTimeParseException e) {
          return F.textNode("<invalid>");
        }
      }
      case "integer", "number" -> {
        return value.isNumber() ? value : F.nullNode();
      }
      case "boolean" -> {
        return value.isBoolean() ? value : F.nullNode();
      }
      default -> {
        // objects and lists print as JSON, like kubectl's JSONPath printer
        return F.textNode(value.isValueNode() ? value.asText() : value.toString());
      }
    }
  }
}
