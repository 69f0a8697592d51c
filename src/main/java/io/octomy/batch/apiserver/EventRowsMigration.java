package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves, at start, the events.k8s.io/v1 Events an earlier release kept apart (under their own
 * resource key) into the one set of Events, in the core form ({@link EventVersions}), each in one
 * transaction and with its resourceVersion. Nothing is lost: an Event whose namespace and name the
 * core set already holds, or that cannot be read, goes to the quarantine table and is named in the
 * log, as any stored object that cannot be served.
 */
final class EventRowsMigration {

  /** Where an earlier release kept events.k8s.io/v1 Events. */
  static final String FORMER_KEY = EventVersions.GROUP + "/events";

  private static final Logger LOG = LoggerFactory.getLogger(EventRowsMigration.class);

  private EventRowsMigration() {}

  /**
   * @return how many Events were moved
   */
  static int run(SqliteStateStore db, ObjectMapper json) {
    int moved = 0;
    for (SqliteStateStore.Row row : db.loadResource(FORMER_KEY)) {
      String problem;
      try {
        JsonNode node = json.readTree(row.body());
        if (node != null && node.isObject()) {
          JsonNode core = EventVersions.toCore(node);
          long version = node.path("metadata").path("resourceVersion").asLong(0);
          if (db.move(row, EventVersions.STORAGE_KEY, version, json.writeValueAsString(core))) {
            moved++;
            continue;
          }
          problem =
              "a core v1 Event of the same namespace and name exists, and both versions now serve"
                  + " one set of Events";
        } else {
          problem = "not a JSON object";
        }
      } catch (JsonProcessingException e) {
        problem = e.getOriginalMessage();
      }
      db.quarantine(row, problem);
      LOG.warn(
          "state database: Event {}/{} of events.k8s.io/v1 cannot join the core Events ({}); it"
              + " was moved to the quarantine table of the state database",
          row.namespace(),
          row.name(),
          problem);
    }
    if (moved > 0) {
      LOG.info(
          "state database: {} events.k8s.io/v1 Events now served in both versions, kept as core"
              + " v1 Events",
          moved);
    }
    return moved;
  }
}
