package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Objects as a resource serves them and as the store keeps them. A resource keeps what it serves,
 * only {@code apiVersion} following the version asked for, except Events: they are kept in the core
 * form and served in core v1 and events.k8s.io/v1 alike ({@link EventVersions}), so an Event
 * written in one version is read, listed, watched, patched and deleted in the other.
 *
 * <p>Handlers work on the served form throughout (what a client sent, what a patch applies to,
 * whose fields a manager owns); the conversion happens where they meet the store: {@link #view} on
 * every object read, {@link #mutation} around every write.
 */
final class ServedObjects {

  private ServedObjects() {}

  /** A stored object as {@code type} serves it at {@code version}; {@code null} stays null. */
  static ObjectNode view(ResourceType type, String version, ObjectNode stored) {
    if (stored == null) {
      return null;
    }
    if (EventVersions.isEventsV1(type)) {
      return EventVersions.printedEventsV1(stored);
    }
    if (EventVersions.isEvent(type)) {
      return EventVersions.printedCore(stored);
    }
    String apiVersion = type.apiVersion(version);
    if (apiVersion.equals(stored.path("apiVersion").asText())) {
      return stored;
    }
    ObjectNode copy = stored.deepCopy();
    copy.put("apiVersion", apiVersion);
    return copy;
  }

  /** A served object in the form the store keeps. */
  static ObjectNode stored(ResourceType type, ObjectNode served) {
    if (EventVersions.isEventsV1(type)) {
      return EventVersions.toCore(served);
    }
    if (EventVersions.isEvent(type)) {
      return EventVersions.canonicalCore(served);
    }
    return served;
  }

  /**
   * A write decided on the served form: the mutation sees the stored object as {@code type} serves
   * it (at its preferred version), and what it decides is kept in the stored form.
   */
  static ObjectStore.Mutation mutation(ResourceType type, ObjectStore.Mutation served) {
    if (!EventVersions.isEvent(type)) {
      return served;
    }
    return current -> {
      ObjectStore.Change change = served.apply(view(type, type.preferredVersion(), current));
      if (change instanceof ObjectStore.Put put) {
        return new ObjectStore.Put(stored(type, put.object()));
      }
      if (change instanceof ObjectStore.Remove remove) {
        return new ObjectStore.Remove(stored(type, remove.last()));
      }
      ObjectNode kept = ((ObjectStore.Keep) change).current();
      return new ObjectStore.Keep(kept == null ? null : stored(type, kept));
    };
  }
}
