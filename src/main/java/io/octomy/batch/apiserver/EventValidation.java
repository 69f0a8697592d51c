package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks a real API server (v1.34) makes of an Event write, over the Event in its core form
 * ({@link EventVersions#canonicalCore}), with the real server's field paths and words (which name
 * the core fields whichever version the write came in). One pure function; an empty answer admits.
 *
 * <ol>
 *   <li>Every write: an Event without {@code eventTime} (an old-style one) is about an object of
 *       its own namespace (or of none, in {@code default}); one with {@code eventTime} names its
 *       reporting controller (a qualified name), reporting instance, action and reason, within
 *       their lengths.
 *   <li>A create through events.k8s.io/v1 also needs {@code eventTime}, a type of Normal or
 *       Warning, a valid series, and none of the deprecated fields.
 *   <li>An update through events.k8s.io/v1 changes nothing but metadata and the series.
 * </ol>
 */
final class EventValidation {

  private static final int NAME_LIMIT = 128;
  private static final int NOTE_LIMIT = 1024;

  /** Core fields an update through events.k8s.io/v1 may not change, in the real server's order. */
  private static final List<String> IMMUTABLE =
      List.of(
          "involvedObject",
          "reason",
          "message",
          "source",
          "firstTimestamp",
          "lastTimestamp",
          "count",
          "type",
          "eventTime",
          "action",
          "related",
          "reportingComponent",
          "reportingInstance");

  /** The real server's Go field names of an ObjectReference and an EventSource, in order. */
  private static final List<String> REFERENCE =
      List.of("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath");

  private static final List<String> SOURCE = List.of("component", "host");

  private EventValidation() {}

  /**
   * @param event the Event to store (core form)
   * @param old the stored Event (core form), {@code null} on create
   * @param eventsV1 whether the write came through events.k8s.io/v1
   * @return what is wrong, in the real server's order; empty when the write is admitted
   */
  static List<ApiException.Cause> check(ObjectNode event, ObjectNode old, boolean eventsV1) {
    List<ApiException.Cause> causes = new ArrayList<>();
    // 1. every write
    legacy(event, eventsV1, causes);
    if (!eventsV1) {
      return causes;
    }
    if (old == null) {
      // 2. a create through events.k8s.io/v1
      series(event, causes);
      if (!event.has("eventTime")) {
        causes.add(required("eventTime"));
      }
      String type = text(event, "type");
      if (!type.equals("Normal") && !type.equals("Warning")) {
        causes.add(invalid("type", "\"\"", "has invalid value: " + type));
      }
      for (String field : List.of("firstTimestamp", "lastTimestamp", "count", "source")) {
        if (event.has(field)) {
          causes.add(invalid(field, "\"\"", "needs to be unset"));
        }
      }
      return causes;
    }
    // 3. an update through events.k8s.io/v1
    if (!event.path("series").equals(old.path("series"))) {
      series(event, causes);
    }
    for (String field : IMMUTABLE) {
      if (!event.path(field).equals(old.path(field))) {
        causes.add(
            new ApiException.Cause(
                field.equals("reportingComponent") ? "reportingController" : field,
                "Invalid value: " + shown(field, event.get(field)) + ": field is immutable",
                "FieldValueInvalid"));
      }
    }
    return causes;
  }

  private static void legacy(ObjectNode event, boolean eventsV1, List<ApiException.Cause> causes) {
    String namespace = event.path("metadata").path("namespace").asText("");
    String regardingNamespace = event.path("involvedObject").path("namespace").asText("");
    if (!event.has("eventTime")) {
      boolean matches =
          regardingNamespace.isEmpty()
              ? namespace.isEmpty() || namespace.equals("default")
              : namespace.equals(regardingNamespace);
      if (!matches) {
        causes.add(
            invalid(
                "involvedObject.namespace",
                quoted(regardingNamespace),
                "does not match event.namespace"));
      }
      return;
    }
    if (regardingNamespace.isEmpty()
        && !namespace.equals("default")
        && !namespace.equals("kube-system")) {
      causes.add(invalid("involvedObject.namespace", "\"\"", "does not match event.namespace"));
    }
    // named as the request names the field
    String controllerField = eventsV1 ? "reportingController" : "reportingComponent";
    String controller = text(event, "reportingComponent");
    if (controller.isEmpty()) {
      causes.add(required(controllerField));
    }
    for (String problem : LabelSyntax.qualifiedNameErrors(controller)) {
      causes.add(invalid(controllerField, quoted(controller), problem));
    }
    requiredWithin(event, "reportingInstance", causes);
    requiredWithin(event, "action", causes);
    requiredWithin(event, "reason", causes);
    if (text(event, "message").length() > NOTE_LIMIT) {
      causes.add(invalid("message", "\"\"", "can have at most " + NOTE_LIMIT + " characters"));
    }
  }

  private static void requiredWithin(ObjectNode event, String field, List<ApiException.Cause> out) {
    String value = text(event, field);
    if (value.isEmpty()) {
      out.add(required(field));
    }
    if (value.length() > NAME_LIMIT) {
      out.add(invalid(field, "\"\"", "can have at most " + NAME_LIMIT + " characters"));
    }
  }

  private static void series(ObjectNode event, List<ApiException.Cause> causes) {
    JsonNode series = event.get("series");
    if (series == null || series.isNull()) {
      return;
    }
    if (series.path("count").asLong(0) < 2) {
      causes.add(invalid("series.count", "\"\"", "should be at least 2"));
    }
    if (series.path("lastObservedTime").asText("").isEmpty()) {
      causes.add(required("series.lastObservedTime"));
    }
  }

  /** A value as the real server shows it in a message: Go field names for a struct. */
  private static String shown(String field, JsonNode value) {
    if (field.equals("involvedObject") || field.equals("related") || field.equals("source")) {
      if (field.equals("related") && (value == null || value.isNull())) {
        return "null";
      }
      List<String> names = field.equals("source") ? SOURCE : REFERENCE;
      ObjectNode go = JsonNodeFactory.instance.objectNode();
      for (String name : names) {
        String goName =
            name.equals("uid") ? "UID" : name.equals("apiVersion") ? "APIVersion" : capital(name);
        go.put(goName, value == null ? "" : value.path(name).asText(""));
      }
      return go.toString();
    }
    if (field.equals("count")) {
      return Long.toString(value == null ? 0 : value.asLong());
    }
    if (field.endsWith("Timestamp") || field.equals("eventTime")) {
      return value == null || value.isNull() ? "null" : quoted(value.asText());
    }
    return quoted(value == null ? "" : value.asText(""));
  }

  private static String capital(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  private static String text(ObjectNode event, String field) {
    return event.path(field).asText("");
  }

  private static String quoted(String value) {
    return JsonNodeFactory.instance.textNode(value).toString();
  }

  private static ApiException.Cause required(String field) {
    return new ApiException.Cause(field, "Required value", "FieldValueRequired");
  }

  private static ApiException.Cause invalid(String field, String shownValue, String detail) {
    return new ApiException.Cause(
        field, "Invalid value: " + shownValue + ": " + detail, "FieldValueInvalid");
  }
}
