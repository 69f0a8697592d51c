package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.UnaryOperator;

/**
 * The cells of an Event's Table row, as the real server's event printer computes them. Events are
 * served in v1 (involvedObject, message, source, count, first/lastTimestamp) and in
 * events.k8s.io/v1 (regarding, note, deprecated*); both print alike, as on a real server.
 */
final class EventCells {

  private final UnaryOperator<String> since;

  /**
   * @param since kubectl's age of an RFC 3339 timestamp ({@code <unknown>} for "")
   */
  EventCells(UnaryOperator<String> since) {
    this.since = since;
  }

  static JsonNode regarding(JsonNode e) {
    return e.has("regarding") ? e.path("regarding") : e.path("involvedObject");
  }

  static String message(JsonNode e) {
    return e.has("note") ? e.path("note").asText("") : e.path("message").asText("");
  }

  String firstSeen(JsonNode e) {
    String first = e.path("firstTimestamp").asText(e.path("deprecatedFirstTimestamp").asText(""));
    return since.apply(first.isEmpty() ? e.path("eventTime").asText("") : first);
  }

  String lastSeen(JsonNode e) {
    JsonNode series = e.path("series");
    if (series.isObject()) {
      return since.apply(series.path("lastObservedTime").asText(""));
    }
    String last = e.path("lastTimestamp").asText(e.path("deprecatedLastTimestamp").asText(""));
    return last.isEmpty() ? firstSeen(e) : since.apply(last);
  }

  static long count(JsonNode e) {
    if (e.path("series").isObject()) {
      return e.path("series").path("count").asLong(0);
    }
    long count = e.path("count").asLong(e.path("deprecatedCount").asLong(0));
    return count == 0 ? 1 : count;
  }

  static String object(JsonNode e) {
    JsonNode r = regarding(e);
    String kind = r.path("kind").asText("").toLowerCase();
    String name = r.path("name").asText("");
    return name.isEmpty() ? kind : kind + "/" + name;
  }

  static String source(JsonNode e) {
    JsonNode source = e.has("deprecatedSource") ? e.path("deprecatedSource") : e.path("source");
    String component = source.path("component").asText("");
    String host = source.path("host").asText("");
    if (component.isEmpty()) {
      component = e.path("reportingController").asText("");
      host = e.path("reportingInstance").asText("");
    }
    return host.isEmpty() ? component : component + ", " + host;
  }
}
