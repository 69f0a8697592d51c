package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * All objects, indexed by resource/namespace/name in a sorted map ({@link ObjectIndex}, as the JSON
 * text committed), written through to SQLite.
 *
 * <p>Writes are decided one at a time under a lock: the read-modify-write of a patch is atomic and
 * resourceVersions are handed out in order. They are then made durable together ({@link
 * GroupCommit}: many writes share one SQLite commit), and only once a write is on disk does it
 * become visible to reads and watches ({@link ChangeFeed}), in resourceVersion order, and is its
 * writer answered. Reads do not lock; each read parses a tree of its own. A node handed to {@link
 * #write} is never mutated after it is stored (watches are sent it); callers copy before changing.
 */
final class ObjectStore implements AutoCloseable {

  /** Default number of recent events kept so that a watch can resume from a resourceVersion. */
  static final int HISTORY = 10_000;

  /** The kept events never hold more than this many bytes of objects, whatever their count. */
  static final long HISTORY_BYTES = 64L * 1024 * 1024;

  /** The exit code of {@code -XX:+ExitOnOutOfMemoryError}, which the launcher explains. */
  static final int OUT_OF_HEAP_EXIT = 3;

  enum EventType {
    ADDED,
    MODIFIED,
    DELETED
  }

  /**
   * One committed change, as delivered to watchers.
   *
   * @param before the object as it was before a MODIFIED change (else {@code null}): a watch with a
   *     selector sees an object that starts or stops matching as ADDED or DELETED
   */
  record Event(
      EventType type,
      String resource,
      String namespace,
      long resourceVersion,
      ObjectNode object,
      PreviousObject before,
      long bytes) {

    /** The object before a MODIFIED change, or {@code null}; read when first asked for. */
    ObjectNode previous() {
      return before == null ? null : before.object();
    }

    boolean hasPrevious() {
      return before != null;
    }
  }

  /**
   * The object before a change, kept as its committed text in compact form ({@link CompactText})
   * and read into a tree only when a watch with a selector or a name asks for it. Most watches (the
   * controller's informers, kubectl's) select nothing and never do; reading it for every change
   * cost the commit thread, which makes every write visible in turn, one parse per write.
   */
  static final class PreviousObject {
    private final byte[] packed;
    private final Function<byte[], ObjectNode> parse;
    private ObjectNode object;

    private PreviousObject(byte[] packed, Function<byte[], ObjectNode> parse) {
      this.packed = packed;
      this.parse = parse;
    }

    /** {@code null} when there is no text: the change had no object before it. */
    static PreviousObject of(byte[] packed, Function<byte[], ObjectNode> parse) {
      return packed == null ? null : new PreviousObject(packed, parse);
    }

    synchronized ObjectNode object() {
      if (object == null) {
        object = parse.apply(packed);
      }
      return object;
    }
  }

  /** A watch. {@link #send} runs under the write lock and must not block. */
  interface Watcher {
    boolean matches(Event event);

    void send(Event event);
  }

  /** What a write decides given the current object (or {@code null}). */
  sealed interface Change permits Put, Remove, Keep {}

  /** Store this object (metadata.resourceVersion is set by the store). */
  record Put(ObjectNode object) implements Change {}

  /** Delete the object; {@code last} is its final state as reported to watchers. */
  record Remove(ObjectNode last) implements Change {}

  /**
   * Nothing changed: answer the current object without a new resourceVersion (like a real no-op
   * update).
   */
  record Keep(ObjectNode current) implements Change {}

  /**
   * Computes a change from the current object under the write lock; may throw {@link ApiException}.
   */
  @FunctionalInterface
  interface Mutation {
    Change apply(ObjectNode current);
  }

  /** The objects of one list, with the resourceVersion to watch from. */
  record Listing(List<ObjectNode> items, long resourceVersion) {}

  /** The committed text of one resource's objects in key order, at one resourceVersion. */
  record TextListing(List<ObjectIndex.ListedText> items, long resourceVersion) {}

  /**
   * A watch asked for a resourceVersion older than the kept history (HTTP 410, the client relists).
   */
  static final class GoneException extends Exception {
    GoneException(String message) {
      super(message);
    }
  }

  private final ObjectMapper json;
  private final SqliteStateStore db;
  private final GroupCommit commits;
  private final CommitGuard guard;
  private final ObjectIndex objects;
  private final ReentrantLock lock = new ReentrantLock();
  private final ChangeFeed feed;

  /** The text of the objects this store holds, for watch events and writers' answers. */
  private final SerializedObjects texts;

  /** The last resourceVersion that is durable and visible. */
  private volatile long resourceVersion;

  /** The last resourceVersion handed out, durable or staged; under the lock. */
  private long stagedVersion;

  ObjectStore(ObjectMapper json, SqliteStateStore db, CommitGuard guard, int historyLimit) {
    this(json, db, guard, historyLimit, HISTORY_BYTES, db::commit, ObjectStore::stopBehindDisk);
  }

  /**
   * Loads every stored object (a row that cannot be read back is quarantined: {@link
   * ObjectIndex#load}).
   *
   * @param durability how a batch of writes is committed: {@code db::commit}, or around it in tests
   * @param behindDisk what is done when a write on disk could not be made visible: the process
   *     stops ({@link #stopBehindDisk}); tests record it
   */
  ObjectStore(
      ObjectMapper json,
      SqliteStateStore db,
      CommitGuard guard,
      int historyLimit,
      long historyBytesLimit,
      GroupCommit.Durability durability,
      Consumer<Error> behindDisk) {
    this.json = json;
    this.db = db;
    this.guard = guard;
    this.objects = ObjectIndex.load(json, db, guard);
    this.texts = new SerializedObjects(json);
    this.resourceVersion = db.lastResourceVersion();
    this.stagedVersion = resourceVersion;
    // events from before this start are gone: a watch from an older version must relist
    this.feed = new ChangeFeed(objects::parse, historyLimit, historyBytesLimit, resourceVersion);
    this.commits =
        new GroupCommit(
            durability,
            lock,
            new GroupCommit.Outcome() {
              @Override
              public void durable(List<GroupCommit.Staged> batch) {
                try {
                  batch.forEach(ObjectStore.this::makeVisible);
                } catch (Error e) {
                  // Out of memory while making writes visible that are on disk: reads and watches
                  // would miss acknowledged writes for as long as the process lives.
                  behindDisk.accept(e);
                  throw e;
                }
              }

              @Override
              public void dropped() {
                stagedVersion = resourceVersion;
              }
            });
  }

  /**
   * Stops the process at once, before the writes are answered: a store whose memory is behind its
   * database would serve reads and watches without writes it acknowledged, while a restart serves
   * them all from the database. As {@code -XX:+ExitOnOutOfMemoryError} does (standalone's launcher
   * gives its server that flag; a JVM the user started with its own heap has none), with the exit
   * code the launcher reads as a heap run out.
   */
  static void stopBehindDisk(Error e) {
    System.err.println(
        "octomy-batch: writes on disk could not be made visible ("
            + e
            + "); stopping so that a restart serves them from the state directory");
    Runtime.getRuntime().halt(OUT_OF_HEAP_EXIT);
  }

  /** The text of the objects this store holds, by identity ({@link SerializedObjects}). */
  SerializedObjects texts() {
    return texts;
  }

  long resourceVersion() {
    return resourceVersion;
  }

  /**
   * Runs {@code action} with the latest visible resourceVersion under the lock that orders watch
   * events, so that what it sends (a watch bookmark) follows every event up to that version.
   */
  void atVisibleVersion(LongConsumer action) {
    lock.lock();
    try {
      action.accept(resourceVersion);
    } finally {
      lock.unlock();
    }
  }

  int size() {
    return objects.size();
  }

  /** One object, or {@code null}. */
  ObjectNode get(String resource, String namespace, String name) {
    return objects.get(ObjectIndex.key(resource, namespace, name));
  }

  /** Objects of one resource, in one namespace or (namespace {@code null}) in all. */
  Listing list(String resource, String namespace) {
    lock.lock();
    try {
      return new Listing(objects.range(resource, namespace), resourceVersion);
    } finally {
      lock.unlock();
    }
  }

  /** As {@link #list}, the objects left as the text they were committed as. */
  TextListing listText(String resource, String namespace) {
    return listText(resource, namespace, null);
  }

  /**
   * As {@link #listText(String, String)}, from after a list page's last key ({@code null}: all).
   */
  TextListing listText(String resource, String namespace, String after) {
    lock.lock();
    try {
      return new TextListing(objects.rangeText(resource, namespace, after), resourceVersion);
    } finally {
      lock.unlock();
    }
  }

  /** A tree of text this store committed, in compact form (a {@link #listText} item's). */
  ObjectNode parse(byte[] packed) {
    return objects.parse(packed);
  }

  /** A tree of text this store committed (a {@link #listText} item's). */
  ObjectNode parse(String committedText) {
    return objects.parse(committedText);
  }

  /**
   * Applies a change to one object atomically and durably: returns once the change is on disk and
   * visible.
   *
   * @param dryRun compute and answer the change, but neither store nor announce it
   * @return the object as stored (or as deleted), with its new resourceVersion
   * @throws StateStoreException when the change could not be made durable (nothing of it is kept)
   */
  ObjectNode write(
      String resource, String namespace, String name, boolean dryRun, Mutation mutation) {
    String key = ObjectIndex.key(resource, namespace, name);
    GroupCommit.Staged awaited;
    ObjectNode answer;
    lock.lock();
    try {
      GroupCommit.Staged staged = commits.latest(key);
      ObjectNode current = staged == null ? objects.get(key) : staged.object;
      if (staged != null && staged.removes()) {
        current = null;
      }
      Change change = mutation.apply(current);
      if (change instanceof Keep keep) {
        // Answered with the latest state, which must be durable before anyone is told of it.
        awaited = staged;
        answer = keep.current();
      } else {
        long rv = stagedVersion + 1;
        ObjectNode object = change instanceof Put put ? put.object() : ((Remove) change).last();
        object.withObjectProperty("metadata").put("resourceVersion", Long.toString(rv));
        String text = change instanceof Put ? guard.check(resource, namespace, name, object) : null;
        if (dryRun) {
          // as a real server answers a dry run: nothing was stored, so no version was handed out;
          // the object keeps the version it has (none when it would be new)
          ObjectNode meta = object.withObjectProperty("metadata");
          if (current == null) {
            meta.remove("resourceVersion");
          } else {
            meta.put("resourceVersion", current.path("metadata").path("resourceVersion").asText());
          }
          return object;
        }
        stagedVersion = rv;
        EventType type =
            change instanceof Remove
                ? EventType.DELETED
                : current == null ? EventType.ADDED : EventType.MODIFIED;
        long bytes =
            text != null ? text.length() : current == null ? 0 : serialize(current).length();
        awaited =
            new GroupCommit.Staged(
                key,
                new SqliteStateStore.RowWrite(resource, namespace, name, rv, text),
                type,
                object,
                bytes);
        commits.stage(awaited);
        answer = object;
      }
    } finally {
      lock.unlock();
    }
    if (awaited != null) {
      GroupCommit.await(awaited);
    }
    return answer;
  }

  /** A durable write becomes what reads and watches see; under the lock, in version order. */
  private void makeVisible(GroupCommit.Staged s) {
    byte[] previous = s.type == EventType.MODIFIED ? objects.packed(s.key) : null;
    byte[] packed;
    if (s.removes()) {
      objects.remove(s.key);
      packed = CompactText.pack(serialize(s.object));
    } else {
      String text = s.row.body();
      packed = objects.put(s.key, text);
      // the committed text is the object serialized (CommitGuard.check, the same mapper): its watch
      // events and its writer's answer need not serialize it again
      texts.remember(s.object, text);
    }
    resourceVersion = s.resourceVersion();
    feed.publish(
        new Event(
            s.type,
            s.row.resource(),
            s.row.namespace(),
            s.resourceVersion(),
            s.object,
            PreviousObject.of(previous, objects::parse),
            s.bytes),
        packed,
        previous);
  }

  private String serialize(ObjectNode object) {
    try {
      return json.writeValueAsString(object);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize an object tree", e);
    }
  }

  /**
   * Starts a watch of one resource (in one namespace or all).
   *
   * @param fromVersion {@code null} to first receive every current object as ADDED (watch without a
   *     resourceVersion, or "0"), else the version after which to replay
   * @param afterReplay run (under the lock) once the initial or replayed events are sent
   * @param end ends the watch from the server's side; run (under the lock) if {@code watcher}
   *     throws on a later event, which the others still receive ({@link ChangeFeed})
   * @return a handle that stops sending to {@code watcher}
   * @throws GoneException when {@code fromVersion} is older than the kept history
   */
  Runnable watch(
      String resource,
      String namespace,
      Long fromVersion,
      Watcher watcher,
      Runnable afterReplay,
      Runnable end)
      throws GoneException {
    Watcher scoped =
        new Watcher() {
          @Override
          public boolean matches(Event e) {
            return e.resource().equals(resource)
                && (namespace == null || namespace.equals(e.namespace()))
                && watcher.matches(e);
          }

          @Override
          public void send(Event e) {
            watcher.send(e);
          }
        };
    lock.lock();
    try {
      if (fromVersion == null) {
        // one object read at a time: every object's tree at once was a heap's worth at 100,000
        for (ObjectIndex.ListedText listed : objects.rangeText(resource, namespace)) {
          ObjectNode o = objects.parse(listed.packed());
          Event e =
              new Event(
                  EventType.ADDED,
                  resource,
                  o.path("metadata").path("namespace").asText(""),
                  version(o),
                  o,
                  null,
                  0);
          if (scoped.matches(e)) {
            scoped.send(e);
          }
        }
      } else {
        feed.replay(fromVersion, resource, namespace, scoped);
      }
      afterReplay.run();
      return feed.open(scoped, end);
    } finally {
      lock.unlock();
    }
  }

  /** Registers an in-process listener for every change (used to keep the CRD registry in step). */
  void listen(Watcher watcher) {
    feed.listen(watcher);
  }

  static long version(ObjectNode object) {
    return Long.parseLong(object.path("metadata").path("resourceVersion").asText("0"));
  }

  /** Every object's metadata with its resource (for the garbage collector's start). */
  List<Map.Entry<String, ObjectNode>> allMetadata() {
    return objects.allMetadata();
  }

  /** All objects of every resource in one namespace (for namespace deletion). */
  List<Map.Entry<String, ObjectNode>> inNamespace(String namespace) {
    return objects.inNamespace(namespace);
  }

  /** Commits what is staged, then closes the database. */
  @Override
  public void close() {
    commits.close();
    lock.lock();
    try {
      feed.closeAll();
      db.close();
    } finally {
      lock.unlock();
    }
  }
}
