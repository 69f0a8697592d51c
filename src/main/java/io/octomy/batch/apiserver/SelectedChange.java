package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Predicate;

/**
 * A change as a watch with a label or field selector sees it, as kube-apiserver's watch cache
 * reports it: an object modified into the selection is ADDED, one modified out of it is DELETED
 * (its last selected state, at the change's resourceVersion), so that a client caching only what it
 * selects neither misses an object nor keeps one that left.
 *
 * @param type the event type the watch is sent
 * @param object the object it is sent with
 */
record SelectedChange(ObjectStore.EventType type, ObjectNode object) {

  /**
   * How {@code selected} sees {@code event}; called only for an event it matches before or after.
   */
  static SelectedChange of(ObjectStore.Event event, Predicate<JsonNode> selected) {
    if (event.type() != ObjectStore.EventType.MODIFIED || !event.hasPrevious()) {
      return new SelectedChange(event.type(), event.object());
    }
    boolean now = selected.test(event.object());
    boolean before = selected.test(event.previous());
    if (now && before) {
      return new SelectedChange(ObjectStore.EventType.MODIFIED, event.object());
    }
    if (now) {
      return new SelectedChange(ObjectStore.EventType.ADDED, event.object());
    }
    ObjectNode last = event.previous().deepCopy();
    last.withObjectProperty("metadata")
        .put("resourceVersion", Long.toString(event.resourceVersion()));
    return new SelectedChange(ObjectStore.EventType.DELETED, last);
  }
}
