package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One set of Events served in two versions, as a real API server serves them: core {@code v1} and
 * {@code events.k8s.io/v1} are two views of the same objects (one key space, one resourceVersion
 * sequence), kept here in the core form. Pure functions over JSON trees.
 *
 * <p>Every field exists in both versions; seven carry other names in {@code events.k8s.io/v1}
 * ({@link #FIELDS}), the rest the same. A field of neither version is dropped on the way in, as a
 * real server's typed decoding drops it. Objects are printed as the real server prints its Go
 * types: in field order, an empty optional field left out, and a field without {@code omitempty}
 * present even when empty ({@code eventTime: null}, {@code source: {}}, {@code reportingComponent:
 * ""} and so on).
 *
 * <p>Field selectors follow the same table: {@code events.k8s.io/v1} accepts {@code regarding.*},
 * {@code reportingController}, {@code reason}, {@code type} and the metadata fields, and selects on
 * the core fields they name (its {@code regarding.name} is the core {@code involvedObject.name}).
 */
final class EventVersions {

  /** Where Events of both versions are stored: the core resource's key. */
  static final String STORAGE_KEY = "/events";

  static final String GROUP = "events.k8s.io";

  /** How an absent field is printed. */
  private enum PrintedWhenEmpty {
    /** left out ({@code omitempty}, or a pointer) */
    OMITTED,
    /** a struct without {@code omitempty} semantics in Go: {@code {}} */
    OBJECT,
    /** a time without a value: {@code null} */
    NULL,
    /** a string without {@code omitempty}: {@code ""} */
    STRING
  }

  /** One field: its core name, its events.k8s.io/v1 name, and how each version prints it empty. */
  private record EventField(
      String core, String eventsV1, PrintedWhenEmpty coreEmpty, PrintedWhenEmpty eventsV1Empty) {}

  /** Every field but apiVersion, kind and metadata, in core v1's order. */
  private static final List<EventField> FIELDS =
      List.of(
          new EventField(
              "involvedObject", "regarding", PrintedWhenEmpty.OBJECT, PrintedWhenEmpty.OBJECT),
          new EventField("reason", "reason", PrintedWhenEmpty.OMITTED, PrintedWhenEmpty.OMITTED),
          new EventField("message", "note", PrintedWhenEmpty.OMITTED, PrintedWhenEmpty.OMITTED),
          new EventField(
              "source", "deprecatedSource", PrintedWhenEmpty.OBJECT, PrintedWhenEmpty.OBJECT),
          new EventField(
              "firstTimestamp",
              "deprecatedFirstTimestamp",
              PrintedWhenEmpty.NULL,
              PrintedWhenEmpty.NULL),
          new EventField(
              "lastTimestamp",
              "deprecatedLastTimestamp",
              PrintedWhenEmpty.NULL,
              PrintedWhenEmpty.NULL),
          new EventField(
              "count", "deprecatedCount", PrintedWhenEmpty.OMITTED, PrintedWhenEmpty.OMITTED),
          new EventField("type", "type", PrintedWhenEmpty.OMITTED, PrintedWhenEmpty.OMITTED),
          new EventField("eventTime", "eventTime", PrintedWhenEmpty.NULL, PrintedWhenEmpty.NULL),
          new EventField("series", "series", PrintedWhenEmpty.OMITTED, PrintedWhenEmpty.OMITTED),
          new EventField("action", "action", PrintedWhenEmpty.OMITTED, PrintedWhenEmpty.OMITTED),
          new EventField("related", "related", PrintedWhenEmpty.OMITTED, PrintedWhenEmpty.OMITTED),
          new EventField(
              "reportingComponent",
              "reportingController",
              PrintedWhenEmpty.STRING,
              PrintedWhenEmpty.OMITTED),
          new EventField(
              "reportingInstance",
              "reportingInstance",
              PrintedWhenEmpty.STRING,
              PrintedWhenEmpty.OMITTED));

  /** events.k8s.io/v1's order of the same fields (its Go type's). */
  private static final List<String> EVENTS_V1_ORDER =
      List.of(
          "eventTime",
          "series",
          "reportingController",
          "reportingInstance",
          "action",
          "reason",
          "regarding",
          "related",
          "note",
          "type",
          "deprecatedSource",
          "deprecatedFirstTimestamp",
          "deprecatedLastTimestamp",
          "deprecatedCount");

  /** The field labels events.k8s.io/v1 accepts in a field selector, with the core label each is. */
  private static final Map<String, String> SELECTABLE =
      Map.ofEntries(
          Map.entry("regarding.kind", "involvedObject.kind"),
          Map.entry("regarding.namespace", "involvedObject.namespace"),
          Map.entry("regarding.name", "involvedObject.name"),
          Map.entry("regarding.uid", "involvedObject.uid"),
          Map.entry("regarding.apiVersion", "involvedObject.apiVersion"),
          Map.entry("regarding.resourceVersion", "involvedObject.resourceVersion"),
          Map.entry("regarding.fieldPath", "involvedObject.fieldPath"),
          Map.entry("reportingController", "reportingComponent"),
          Map.entry("reason", "reason"),
          Map.entry("type", "type"),
          Map.entry("metadata.name", "metadata.name"),
          Map.entry("metadata.namespace", "metadata.namespace"));

  private EventVersions() {}

  /** Whether the resource is events.k8s.io's view of the core Events. */
  static boolean isEventsV1(ResourceType type) {
    return type.group().equals(GROUP) && type.plural().equals("events");
  }

  /** Whether objects of the resource are Events (of either version). */
  static boolean isEvent(ResourceType type) {
    return isEventsV1(type) || (type.group().isEmpty() && type.plural().equals("events"));
  }

  /**
   * An events.k8s.io/v1 Event in the core form: the fields renamed, the empty ones left out, a
   * field of neither version dropped.
   */
  static ObjectNode toCore(JsonNode eventsV1) {
    ObjectNode core = head(eventsV1, "v1");
    for (EventField f : FIELDS) {
      copyIfSet(eventsV1, f.eventsV1(), core, f.core());
    }
    return core;
  }

  /**
   * A core v1 Event as stored: the same, with the empty fields left out and unknown ones dropped.
   */
  static ObjectNode canonicalCore(JsonNode core) {
    ObjectNode out = head(core, "v1");
    for (EventField f : FIELDS) {
      copyIfSet(core, f.core(), out, f.core());
    }
    return out;
  }

  /** A stored (core) Event as events.k8s.io/v1 prints it. */
  static ObjectNode printedEventsV1(JsonNode core) {
    ObjectNode out = head(core, GROUP + "/v1");
    for (String name : EVENTS_V1_ORDER) {
      EventField f =
          FIELDS.stream().filter(x -> x.eventsV1().equals(name)).findFirst().orElseThrow();
      print(core.get(f.core()), out, name, f.eventsV1Empty());
    }
    return out;
  }

  /** A stored (core) Event as core v1 prints it. */
  static ObjectNode printedCore(JsonNode core) {
    ObjectNode out = head(core, "v1");
    for (EventField f : FIELDS) {
      print(core.get(f.core()), out, f.core(), f.coreEmpty());
    }
    return out;
  }

  /**
   * The core field label an events.k8s.io/v1 field selector names, or empty when that version does
   * not offer it (the real server then answers "field label not supported").
   */
  static Optional<String> coreFieldLabel(String eventsV1Label) {
    return Optional.ofNullable(SELECTABLE.get(eventsV1Label));
  }

  /** The field labels events.k8s.io/v1 accepts. */
  static Set<String> eventsV1FieldLabels() {
    return SELECTABLE.keySet();
  }

  private static ObjectNode head(JsonNode from, String apiVersion) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("kind", "Event").put("apiVersion", apiVersion);
    JsonNode meta = from.get("metadata");
    if (meta != null) {
      out.set("metadata", meta.deepCopy());
    }
    return out;
  }

  private static void copyIfSet(JsonNode from, String name, ObjectNode to, String as) {
    JsonNode value = from.get(name);
    if (!isEmpty(value)) {
      to.set(as, value.deepCopy());
    }
  }

  private static void print(JsonNode value, ObjectNode to, String name, PrintedWhenEmpty empty) {
    if (!isEmpty(value)) {
      to.set(name, value.deepCopy());
      return;
    }
    switch (empty) {
      case OBJECT -> to.set(name, value != null && value.isObject() ? value : to.objectNode());
      case NULL -> to.putNull(name);
      case STRING -> to.put(name, "");
      case OMITTED -> {}
    }
  }

  /**
   * Whether a field holds Go's zero value, which the real server neither keeps apart from absence
   * nor prints where the field is optional.
   */
  private static boolean isEmpty(JsonNode value) {
    return value == null
        || value.isNull()
        || value.isMissingNode()
        || (value.isTextual() && value.asText().isEmpty())
        || (value.isNumber() && value.asDouble() == 0)
        || (value.isObject() && value.isEmpty());
  }
}
