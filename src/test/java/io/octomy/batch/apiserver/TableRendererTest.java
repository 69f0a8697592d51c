package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Printer columns to Table rows, JSONPath subset and kubectl-style ages. */
class TableRendererTest {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void rendersPrinterColumnsWithPrioritiesAndAges() throws Exception {
    ResourceType type =
        ResourceRegistry.fromCrd(YAML.readTree(Files.readString(TestCrds.sampleCrd())));
    ObjectNode o =
        (ObjectNode)
            YAML.readTree(
                """
                metadata: {name: a, namespace: default, creationTimestamp: "2025-01-01T00:00:00Z"}
                spec: {size: 4, mode: Slow}
                status: {phase: Running, message: hi, conditions: [{type: Other, status: "False"}, {type: Ready, status: "True"}]}
                """);
    Clock clock = Clock.fixed(Instant.parse("2025-01-01T00:03:05Z"), ZoneOffset.UTC);
    ObjectNode table = new TableRenderer(clock).table(type, "v1alpha1", List.of(o), null, 9);
    assertThat(table.path("kind").asText()).isEqualTo("Table");
    assertThat(table.path("columnDefinitions").findValuesAsText("name"))
        .containsExactly("Name", "Mode", "Size", "Phase", "Ready", "Message", "Age");
    assertThat(table.at("/columnDefinitions/5/priority").asInt()).isEqualTo(1);
    assertThat(table.at("/rows/0/cells").toString())
        .isEqualTo("[\"a\",\"Slow\",4,\"Running\",\"True\",\"hi\",\"3m5s\"]");
    assertThat(table.at("/rows/0/object/kind").asText()).isEqualTo("PartialObjectMetadata");
    assertThat(table.at("/metadata/resourceVersion").asText()).isEqualTo("9");
  }

  private static ObjectNode coreTable(String plural, String yaml) throws Exception {
    ResourceType type = new ResourceRegistry().find("", "v1", plural).orElseThrow();
    Clock clock = Clock.fixed(Instant.parse("2025-01-01T00:10:00Z"), ZoneOffset.UTC);
    return new TableRenderer(clock)
        .table(type, "v1", List.of((ObjectNode) YAML.readTree(yaml)), null, 3);
  }

  @Test
  void eventsPrintTheRealServersColumnsWithTheWideOnesAtPriorityOne() throws Exception {
    ObjectNode table =
        coreTable(
            "events",
            """
            metadata: {name: solve-a.waiting, namespace: default, creationTimestamp: "2025-01-01T00:00:00Z"}
            involvedObject: {kind: BatchJob, name: solve-a}
            reason: WaitingForCapacity
            message: "waiting for capacity "
            type: Normal
            source: {component: octomy-batch-controller}
            firstTimestamp: "2025-01-01T00:01:00Z"
            lastTimestamp: "2025-01-01T00:08:00Z"
            count: 3
            """);
    assertThat(table.path("columnDefinitions").findValuesAsText("name"))
        .containsExactly(
            "Last Seen",
            "Type",
            "Reason",
            "Object",
            "Subobject",
            "Source",
            "Message",
            "First Seen",
            "Count",
            "Name");
    assertThat(table.path("columnDefinitions").findValuesAsText("priority"))
        .containsExactly("0", "0", "0", "0", "1", "1", "0", "1", "1", "1");
    assertThat(table.at("/rows/0/cells").toString())
        .isEqualTo(
            "[\"2m\",\"Normal\",\"WaitingForCapacity\",\"batchjob/solve-a\",\"\","
                + "\"octomy-batch-controller\",\"waiting for capacity\",\"9m\",3,"
                + "\"solve-a.waiting\"]");
  }

  @Test
  void configMapsSecretsAndServiceAccountsCountTheirEntries() throws Exception {
    String meta = "metadata: {name: x, creationTimestamp: \"2025-01-01T00:00:00Z\"}\n";
    ObjectNode cm = coreTable("configmaps", meta + "data: {a: '1', b: '2'}\nbinaryData: {c: AA==}");
    assertThat(cm.path("columnDefinitions").findValuesAsText("name"))
        .containsExactly("Name", "Data", "Age");
    assertThat(cm.at("/rows/0/cells").toString()).isEqualTo("[\"x\",3,\"10m\"]");
    ObjectNode secret = coreTable("secrets", meta + "type: Opaque\ndata: {a: MQ==}");
    assertThat(secret.at("/rows/0/cells").toString()).isEqualTo("[\"x\",\"Opaque\",1,\"10m\"]");
    ObjectNode sa = coreTable("serviceaccounts", meta);
    assertThat(sa.at("/rows/0/cells").toString()).isEqualTo("[\"x\",\"0\",\"10m\"]");
  }

  @Test
  void missingValuesAreNullCells() throws Exception {
    ResourceType type =
        ResourceRegistry.fromCrd(YAML.readTree(Files.readString(TestCrds.sampleCrd())));
    ObjectNode o =
        (ObjectNode)
            YAML.readTree("metadata: {name: b, creationTimestamp: \"2025-01-01T00:00:00Z\"}");
    ObjectNode table =
        new TableRenderer(Clock.systemUTC()).table(type, "v1alpha1", List.of(o), "None", 1);
    assertThat(table.at("/rows/0/cells/3").isNull()).isTrue();
    assertThat(table.at("/rows/0").has("object")).isFalse();
  }

  @Test
  void jsonPathSubset() throws Exception {
    var doc = YAML.readTree("a: {b: [{t: x, v: 1}, {t: y, v: 2}]}");
    assertThat(SimpleJsonPath.parse(".a.b[1].v").find(doc).get(0).asInt()).isEqualTo(2);
    assertThat(SimpleJsonPath.parse("{.a.b[?(@.t==\"y\")].v}").find(doc).get(0).asInt())
        .isEqualTo(2);
    assertThat(SimpleJsonPath.parse(".a.b[*].t").find(doc)).hasSize(2);
    assertThat(SimpleJsonPath.parse(".a.c").find(doc)).isEmpty();
  }

  @Test
  void agesLikeKubectl() {
    assertThat(HumanDuration.format(Duration.ofSeconds(45))).isEqualTo("45s");
    assertThat(HumanDuration.format(Duration.ofSeconds(119))).isEqualTo("119s");
    assertThat(HumanDuration.format(Duration.ofMinutes(5))).isEqualTo("5m");
    assertThat(HumanDuration.format(Duration.ofMinutes(45))).isEqualTo("45m");
    assertThat(HumanDuration.format(Duration.ofMinutes(4 * 60 + 5))).isEqualTo("4h5m");
    assertThat(HumanDuration.format(Duration.ofHours(50))).isEqualTo("2d2h");
    assertThat(HumanDuration.format(Duration.ofDays(30))).isEqualTo("30d");
  }
}
