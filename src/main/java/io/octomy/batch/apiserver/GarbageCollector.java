package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owner references followed as a real cluster's garbage collector follows them, so that a delete
 * does to dependents what it does on a cluster:
 *
 * <ul>
 *   <li>an object none of whose owners exists any more is deleted (owners deleted in the
 *       background, or never there); one that still has an owner loses only the references to the
 *       gone ones;
 *   <li>an owner deleted in the foreground ({@code foregroundDeletion} finalizer) has its
 *       dependents deleted first and goes once none that blocks it ({@code blockOwnerDeletion}) is
 *       left;
 *   <li>an owner deleted with orphaning ({@code orphan} finalizer) has its reference removed from
 *       every dependent, then goes.
 * </ul>
 *
 * <p>It follows every committed change (the store calls it under its write lock; it only updates
 * its indexes and queues work there) and does the work on one thread of its own, as the real
 * collector works after the request that caused it. At start it looks at every stored object, so
 * work left over by a stop is finished.
 */
final class GarbageCollector implements ObjectStore.Watcher, AutoCloseable {

  static final String FOREGROUND = "foregroundDeletion";
  static final String ORPHAN = "orphan";

  private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);

  /** Where one object lives in the store. */
  private record Location(String resource, String namespace, String name) {}

  /** Deletes an object as a DELETE request would. */
  @FunctionalInterface
  interface Deleter {
    void delete(ResourceType type, String namespace, String name, DeleteOptions options);
  }

  private final ObjectStore store;
  private final Function<String, ResourceType> types;
  private final Deleter deleter;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "garbage-collector");
            t.setDaemon(true);
            return t;
          });
  private final Map<String, Location> byUid = new ConcurrentHashMap<>();
  private final Map<Location, Set<String>> ownersOf = new ConcurrentHashMap<>();
  private final Map<String, Set<Location>> dependentsOf = new ConcurrentHashMap<>();

  GarbageCollector(ObjectStore store, Function<String, ResourceType> types, Deleter deleter) {
    this.store = store;
    this.types = types;
    this.deleter = deleter;
  }

  /** Indexes what is stored, follows what changes, and finishes work a stop left undone. */
  void start() {
    store.listen(this);
    List<Location> toCheck = new ArrayList<>();
    for (Map.Entry<String, ObjectNode> e : store.allMetadata()) {
      Location at = index(e.getKey(), e.getValue());
      if (at != null) {
        toCheck.add(at);
      }
    }
    toCheck.forEach(at -> submit(() -> revisit(at)));
  }

  @Override
  public boolean matches(ObjectStore.Event event) {
    return true;
  }

  @Override
  public void send(ObjectStore.Event event) {
    JsonNode meta = event.object().path("metadata");
    Location at = new Location(event.resource(), event.namespace(), meta.path("name").asText());
    String uid = meta.path("uid").asText("");
    if (event.type() == ObjectStore.EventType.DELETED) {
      byUid.remove(uid, at);
      Set<String> owners = ownersOf.remove(at);
      if (owners != null) {
        for (String owner : owners) {
          unlink(owner, at);
          Location ownerAt = byUid.get(owner);
          if (ownerAt != null) {
            // a dependent gone may be what an owner deleted in the foreground waits for
            submit(() -> finishDeletion(ownerAt));
          }
        }
      }
      for (Location dependent : List.copyOf(dependentsOf.getOrDefault(uid, Set.of()))) {
        submit(() -> checkOwners(dependent));
      }
      return;
    }
    Set<String> before = ownersOf.getOrDefault(at, Set.of());
    Location indexed = index(event.resource(), event.object());
    if (indexed != null
        && (event.type() == ObjectStore.EventType.ADDED
            || !before.equals(ownersOf.getOrDefault(at, Set.of()))
            || isBeingDeletedWith(event.object(), FOREGROUND)
            || isBeingDeletedWith(event.object(), ORPHAN))) {
      submit(() -> revisit(indexed));
    }
  }

  /** Indexes one object; returns its location when it has owners or waits for this collector. */
  private Location index(String resource, ObjectNode object) {
    JsonNode meta = object.path("metadata");
    Location at =
        new Location(resource, meta.path("namespace").asText(""), meta.path("name").asText());
    byUid.put(meta.path("uid").asText(""), at);
    Set<String> owners = new HashSet<>();
    for (JsonNode ref : meta.path("ownerReferences")) {
      owners.add(ref.path("uid").asText(""));
    }
    Set<String> before = owners.isEmpty() ? ownersOf.remove(at) : ownersOf.put(at, owners);
    for (String gone : before == null ? Set.<String>of() : before) {
      if (!owners.contains(gone)) {
        unlink(gone, at);
      }
    }
    for (String owner : owners) {
      dependentsOf.computeIfAbsent(owner, k -> ConcurrentHashMap.newKeySet()).add(at);
    }
    boolean waits = isBeingDeletedWith(object, FOREGROUND) || isBeingDeletedWith(object, ORPHAN);
    return owners.isEmpty() && !waits ? null : at;
  }

  private void unlink(String owner, Location dependent) {
    dependentsOf.computeIfPresent(
        owner,
        (k, set) -> {
          set.remove(dependent);
          return set.isEmpty() ? null : set;
        });
  }

  private void revisit(Location at) {
    checkOwners(at);
    finishDeletion(at);
  }

  /** The real collector's decision for one dependent, given which of its owners still exist. */
  private void checkOwners(Location at) {
    ObjectNode object = store.get(at.resource(), at.namespace(), at.name());
    ResourceType type = types.apply(at.resource());
    if (object == null || type == null) {
      return;
    }
    Set<String> gone = new HashSet<>();
    Set<String> waiting = new HashSet<>();
    boolean solid = false;
    for (JsonNode ref : object.path("metadata").path("ownerReferences")) {
      String uid = ref.path("uid").asText("");
      ObjectNode owner = ownerOf(uid, at);
      if (owner == null) {
        gone.add(uid);
      } else if (isBeingDeletedWith(owner, FOREGROUND)) {
        waiting.add(uid);
      } else {
        solid = true;
      }
    }
    if (gone.isEmpty() && waiting.isEmpty()) {
      return;
    }
    String uid = object.path("metadata").path("uid").asText();
    if (solid) {
      gone.addAll(waiting);
      removeOwnerReferences(at, uid, gone);
      return;
    }
    DeleteOptions.Propagation propagation;
    if (isBeingDeletedWith(object, ORPHAN)) {
      propagation = DeleteOptions.Propagation.ORPHAN;
    } else if (isBeingDeletedWith(object, FOREGROUND)
        || (!waiting.isEmpty() && !dependentsOf.getOrDefault(uid, Set.of()).isEmpty())) {
      propagation = DeleteOptions.Propagation.FOREGROUND;
    } else {
      propagation = DeleteOptions.Propagation.BACKGROUND;
    }
    deleter.delete(
        type,
        at.namespace(),
        at.name(),
        new DeleteOptions(new Preconditions(uid, ""), false, propagation));
  }

  /** The owner with this uid, if it exists where the dependent may refer to it. */
  private ObjectNode ownerOf(String uid, Location dependent) {
    Location at = byUid.get(uid);
    if (at == null
        || (!at.namespace().isEmpty() && !at.namespace().equals(dependent.namespace()))) {
      return null;
    }
    ObjectNode owner = store.get(at.resource(), at.namespace(), at.name());
    return owner != null && uid.equals(owner.path("metadata").path("uid").asText()) ? owner : null;
  }

  /** The collector's part of a foreground or orphaning delete of {@code at}, if it has one. */
  private void finishDeletion(Location at) {
    ObjectNode object = store.get(at.resource(), at.namespace(), at.name());
    if (object == null) {
      return;
    }
    String uid = object.path("metadata").path("uid").asText();
    List<Location> dependents = List.copyOf(dependentsOf.getOrDefault(uid, Set.of()));
    if (isBeingDeletedWith(object, ORPHAN)) {
      for (Location d : dependents) {
        ObjectNode dependent = store.get(d.resource(), d.namespace(), d.name());
        if (dependent != null) {
          removeOwnerReferences(d, dependent.path("metadata").path("uid").asText(), Set.of(uid));
        }
      }
      removeFinalizer(at, uid, ORPHAN);
    } else if (isBeingDeletedWith(object, FOREGROUND)) {
      boolean blocked = false;
      for (Location d : dependents) {
        ObjectNode dependent = store.get(d.resource(), d.namespace(), d.name());
        if (dependent == null) {
          continue;
        }
        blocked |= blocks(dependent, uid);
        if (!dependent.path("metadata").has("deletionTimestamp")) {
          checkOwners(d);
        }
      }
      if (!blocked) {
        removeFinalizer(at, uid, FOREGROUND);
      }
    }
  }

  private static boolean blocks(ObjectNode dependent, String ownerUid) {
    for (JsonNode ref : dependent.path("metadata").path("ownerReferences")) {
      if (ownerUid.equals(ref.path("uid").asText()) && ref.path("blockOwnerDeletion").asBoolean()) {
        return true;
      }
    }
    return false;
  }

  private void removeOwnerReferences(Location at, String uid, Set<String> owners) {
    edit(
        at,
        uid,
        meta -> {
          ArrayNode kept = meta.arrayNode();
          for (JsonNode ref : meta.path("ownerReferences")) {
            if (!owners.contains(ref.path("uid").asText())) {
              kept.add(ref);
            }
          }
          if (kept.isEmpty()) {
            meta.remove("ownerReferences");
          } else {
            meta.set("ownerReferences", kept);
          }
        });
  }

  private void removeFinalizer(Location at, String uid, String finalizer) {
    edit(
        at,
        uid,
        meta -> {
          ArrayNode kept = meta.arrayNode();
          for (JsonNode f : meta.path("finalizers")) {
            if (!f.asText().equals(finalizer)) {
              kept.add(f);
            }
          }
          if (kept.isEmpty()) {
            meta.remove("finalizers");
          } else {
            meta.set("finalizers", kept);
          }
        });
  }

  /** A metadata-only write to the object with this uid; it goes if nothing holds it any more. */
  private void edit(Location at, String uid, Consumer<ObjectNode> change) {
    store.write(
        at.resource(),
        at.namespace(),
        at.name(),
        false,
        current -> {
          if (current == null || !uid.equals(current.path("metadata").path("uid").asText())) {
            return new ObjectStore.Keep(current);
          }
          ObjectNode next = current.deepCopy();
          change.accept(next.withObjectProperty("metadata"));
          if (next.equals(current)) {
            return new ObjectStore.Keep(current);
          }
          if (next.path("metadata").has("deletionTimestamp") && !ObjectRules.hasFinalizers(next)) {
            return new ObjectStore.Remove(next);
          }
          return new ObjectStore.Put(next);
        });
  }

  static boolean isBeingDeletedWith(JsonNode object, String finalizer) {
    JsonNode meta = object.path("metadata");
    if (!meta.has("deletionTimestamp")) {
      return false;
    }
    for (JsonNode f : meta.path("finalizers")) {
      if (f.asText().equals(finalizer)) {
        return true;
      }
    }
    return false;
  }

  private void submit(Runnable task) {
    try {
      worker.execute(
          () -> {
            try {
              task.run();
            } catch (ApiException e) {
              // changed or gone meanwhile: the change that did it queues the next look
              LOG.debug("garbage collection step skipped: {}", e.getMessage());
            } catch (RuntimeException e) {
              LOG.warn("garbage collection step failed", e);
            }
          });
    } catch (RejectedExecutionException e) {
      // closing: what is left is found again by the next start
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
