package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Conversion between core v1 and events.k8s.io/v1 Events, held to what kube-apiserver v1.34 answers
 * (the expected objects below are its answers, with metadata left out) and to the fields fabric8's
 * models (generated from Kubernetes' OpenAPI) give each version.
 */
class EventVersionsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A core v1 Event with every field set. */
  private static final String FULL_CORE =
      """
      {"kind":"Event","apiVersion":"v1","metadata":{"name":"e","namespace":"ns","uid":"u-1"},
       "involvedObject":{"kind":"BatchJob","namespace":"ns","name":"solve-a","uid":"u-2",
         "apiVersion":"batch.octomy.io/v1alpha1","resourceVersion":"7","fieldPath":"spec"},
       "reason":"OverLimit","message":"measured 5000","source":{"component":"agent","host":"ws-7"},
       "firstTimestamp":"2025-01-01T00:00:00Z","lastTimestamp":"2025-01-01T00:05:00Z","count":3,
       "type":"Warning","eventTime":"2025-01-01T00:00:00.000000Z",
       "series":{"count":2,"lastObservedTime":"2025-01-01T00:05:00.000000Z"},"action":"Measure",
       "related":{"kind":"BatchNode","name":"ws-7"},"reportingComponent":"octomy-batch-agent",
       "reportingInstance":"ws-7"}
      """;

  /** The same Event as events.k8s.io/v1 serves it. */
  private static final String FULL_EVENTS_V1 =
      """
      {"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"e","namespace":"ns","uid":"u-1"},
       "eventTime":"2025-01-01T00:00:00.000000Z",
       "series":{"count":2,"lastObservedTime":"2025-01-01T00:05:00.000000Z"},
       "reportingController":"octomy-batch-agent","reportingInstance":"ws-7","action":"Measure",
       "reason":"OverLimit",
       "regarding":{"kind":"BatchJob","namespace":"ns","name":"solve-a","uid":"u-2",
         "apiVersion":"batch.octomy.io/v1alpha1","resourceVersion":"7","fieldPath":"spec"},
       "related":{"kind":"BatchNode","name":"ws-7"},"note":"measured 5000","type":"Warning",
       "deprecatedSource":{"component":"agent","host":"ws-7"},
       "deprecatedFirstTimestamp":"2025-01-01T00:00:00Z",
       "deprecatedLastTimestamp":"2025-01-01T00:05:00Z","deprecatedCount":3}
      """;

  @Test
  void aCoreEventReadsAsEventsV1WithEveryFieldRenamedOrKept() {
    assertThat(EventVersions.printedEventsV1(tree(FULL_CORE))).isEqualTo(tree(FULL_EVENTS_V1));
  }

  @Test
  void anEventsV1EventIsKeptAsTheCoreEvent() {
    assertThat(EventVersions.toCore(tree(FULL_EVENTS_V1))).isEqualTo(tree(FULL_CORE));
    assertThat(EventVersions.printedCore(EventVersions.toCore(tree(FULL_EVENTS_V1))))
        .isEqualTo(tree(FULL_CORE));
  }

  @Test
  void everyFieldOfEitherVersionSurvivesARoundTripThroughTheOther() {
    ObjectNode core = everyField(typeOf(Event.class), "v1");
    ObjectNode eventsV1 =
        everyField(
            JSON.getTypeFactory()
                .constructFromCanonical("io.fabric8.kubernetes.api.model.events.v1.Event"),
            "events.k8s.io/v1");
    assertThat(core.size()).as("core v1 Event fields").isEqualTo(17);
    assertThat(eventsV1.size()).as("events.k8s.io/v1 Event fields").isEqualTo(17);

    ObjectNode asEventsV1 = EventVersions.printedEventsV1(core);
    assertThat(names(asEventsV1)).containsExactlyInAnyOrderElementsOf(names(eventsV1));
    assertThat(EventVersions.printedCore(EventVersions.toCore(asEventsV1))).isEqualTo(core);

    ObjectNode asCore = EventVersions.printedCore(EventVersions.toCore(eventsV1));
    assertThat(names(asCore)).containsExactlyInAnyOrderElementsOf(names(core));
    assertThat(EventVersions.printedEventsV1(EventVersions.canonicalCore(asCore)))
        .isEqualTo(eventsV1);
  }

  @Test
  void emptyFieldsPrintAsTheRealServerPrintsThem() {
    String sparseCore =
        """
        {"kind":"Event","apiVersion":"v1","metadata":{"name":"a","namespace":"ev1"},
         "involvedObject":{"kind":"Pod","namespace":"ev1","name":"p"},"reason":"R","message":"m",
         "type":"Normal"}
        """;
    assertThat(EventVersions.printedCore(EventVersions.canonicalCore(tree(sparseCore))))
        .isEqualTo(
            tree(
                """
                {"kind":"Event","apiVersion":"v1","metadata":{"name":"a","namespace":"ev1"},
                 "involvedObject":{"kind":"Pod","namespace":"ev1","name":"p"},"reason":"R",
                 "message":"m","source":{},"firstTimestamp":null,"lastTimestamp":null,
                 "type":"Normal","eventTime":null,"reportingComponent":"","reportingInstance":""}
                """));
    assertThat(EventVersions.printedEventsV1(EventVersions.canonicalCore(tree(sparseCore))))
        .isEqualTo(
            tree(
                """
                {"kind":"Event","apiVersion":"events.k8s.io/v1",
                 "metadata":{"name":"a","namespace":"ev1"},"eventTime":null,"reason":"R",
                 "regarding":{"kind":"Pod","namespace":"ev1","name":"p"},"note":"m",
                 "type":"Normal","deprecatedSource":{},"deprecatedFirstTimestamp":null,
                 "deprecatedLastTimestamp":null}
                """));
  }

  @Test
  void emptyAndUnknownFieldsAreNotKept() {
    ObjectNode stored =
        EventVersions.toCore(
            tree(
                """
                {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"b"},
                 "note":"n","message":"a core field is unknown here","deprecatedSource":{},
                 "deprecatedFirstTimestamp":null,"deprecatedCount":0,"reportingInstance":"",
                 "priority":5}
                """));
    assertThat(stored)
        .isEqualTo(
            tree(
                """
                {"kind":"Event","apiVersion":"v1","metadata":{"name":"b"},"message":"n"}
                """));
    assertThat(EventVersions.canonicalCore(tree("{\"metadata\":{},\"note\":\"x\",\"count\":0}")))
        .isEqualTo(tree("{\"kind\":\"Event\",\"apiVersion\":\"v1\",\"metadata\":{}}"));
  }

  @Test
  void eventsV1FieldSelectorsNameTheCoreFieldsAndOnlyTheRealServersLabels() {
    assertThat(EventVersions.coreFieldLabel("regarding.name")).contains("involvedObject.name");
    assertThat(EventVersions.coreFieldLabel("regarding.uid")).contains("involvedObject.uid");
    assertThat(EventVersions.coreFieldLabel("reportingController")).contains("reportingComponent");
    assertThat(EventVersions.coreFieldLabel("type")).contains("type");
    assertThat(EventVersions.coreFieldLabel("metadata.name")).contains("metadata.name");
    // refused by kube-apiserver v1.34 on events.k8s.io/v1: "field label not supported"
    for (String refused :
        List.of(
            "involvedObject.name",
            "reportingComponent",
            "source",
            "note",
            "deprecatedSource.component")) {
      assertThat(EventVersions.coreFieldLabel(refused)).as(refused).isEmpty();
    }
    assertThat(EventVersions.eventsV1FieldLabels()).hasSize(12);
  }

  @Test
  void bothVersionsAreOneStoredResource() {
    ResourceRegistry registry = new ResourceRegistry();
    ResourceType core = registry.find("", "v1", "events").orElseThrow();
    ResourceType eventsV1 = registry.find("events.k8s.io", "v1", "events").orElseThrow();
    assertThat(eventsV1.storageKey()).isEqualTo(core.storageKey()).isEqualTo("/events");
    assertThat(eventsV1.key()).isNotEqualTo(core.key());
    ResourceType configMaps = registry.find("", "v1", "configmaps").orElseThrow();
    assertThat(configMaps.storageKey()).isEqualTo(configMaps.key());
  }

  /**
   * An Event of one version with every field of its fabric8 model set to a value of its own
   * (objects get one key, so that no field is empty).
   */
  private static ObjectNode everyField(JavaType type, String apiVersion) {
    ObjectNode o = JSON.createObjectNode();
    o.put("kind", "Event").put("apiVersion", apiVersion);
    o.putObject("metadata").put("name", "every-field").put("namespace", "ns");
    List<BeanPropertyDefinition> properties =
        JSON.getDeserializationConfig().introspect(type).findProperties();
    for (BeanPropertyDefinition p : properties) {
      String name = p.getName();
      if (Set.of("apiVersion", "kind", "metadata", "additionalProperties").contains(name)) {
        continue;
      }
      Class<?> raw = p.getPrimaryType().getRawClass();
      if (raw == Integer.class || raw == int.class) {
        o.put(name, 42);
      } else if (raw == String.class) {
        o.put(name, "value-of-" + name);
      } else {
        // a time (MicroTime, Time) is an object in the model but a string on the wire; a struct
        // carries any one key, which the conversion passes on untouched
        boolean time = raw.getSimpleName().endsWith("Time");
        if (time) {
          o.put(name, "2025-01-01T00:00:00Z");
        } else {
          o.putObject(name).put("name", "of-" + name);
        }
      }
    }
    return o;
  }

  private static JavaType typeOf(Class<?> c) {
    return JSON.constructType(c);
  }

  private static List<String> names(JsonNode o) {
    List<String> out = new ArrayList<>();
    o.fieldNames().forEachRemaining(out::add);
    return out;
  }

  private static ObjectNode tree(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }
}
