package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.octomy.batch.apiserver.ObjectStore.Event;
import io.octomy.batch.apiserver.ObjectStore.EventType;
import io.octomy.batch.apiserver.ObjectStore.GoneException;
import io.octomy.batch.apiserver.ObjectStore.Watcher;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committed events as watches see them: the recent ones, kept so that a watch can resume from a
 * resourceVersion, and the open watches each new one is sent to.
 *
 * <p>The kept events hold the objects' committed text in compact form ({@link CompactText}), not
 * their trees: the text of an object's latest version is the very array {@link ObjectIndex} keeps,
 * so the history of the last 10,000 changes costs little beyond the older versions' packed text. A
 * replay unpacks and parses what it sends.
 *
 * <p>Every method but {@link #listen} runs under {@link ObjectStore}'s write lock, so events are
 * kept and sent in resourceVersion order and a watch misses none between its replay and its first
 * live event.
 *
 * <p>A receiver that throws on an event does not keep it from the others, nor from being kept (the
 * write is durable and acknowledged by the time it is published). A watch that throws is over: it
 * has missed an event, so it is ended and its client watches again from the last version it saw, as
 * after any ended watch. An in-process listener stays: it keeps the CRD registry or the garbage
 * collector in step and must see every later change; its failure is logged.
 */
final class ChangeFeed {

  /**
   * One kept event: its object and (when MODIFIED) the object before, as committed text in compact
   * form; {@code bytes} counts both as kept, {@code textLength} is the object's text unpacked.
   */
  private record Kept(
      EventType type,
      String resource,
      String namespace,
      long resourceVersion,
      byte[] packed,
      byte[] previousPacked,
      long bytes,
      long textLength) {}

  /** A watch and how to end it from the server's side. */
  private record OpenWatch(Watcher watcher, Runnable end) {}

  private static final Logger LOG = LoggerFactory.getLogger(ChangeFeed.class);

  // listeners first: a client that sees a CRD's event may use the kind at once
  private final List<Watcher> listeners = new CopyOnWriteArrayList<>();
  private final List<OpenWatch> watches = new CopyOnWriteArrayList<>();
  private final ArrayDeque<Kept> history = new ArrayDeque<>();
  private final Function<byte[], ObjectNode> parse;
  private final int historyLimit;
  private final long historyBytesLimit;
  private long historyBytes;

  /** Every event with a resourceVersion above this one is still in {@link #history}. */
  private long historyFloor;

  /**
   * @param parse reads committed text in compact form back into a tree
   * @param historyFloor the resourceVersion the store starts at: no older event is kept
   */
  ChangeFeed(
      Function<byte[], ObjectNode> parse,
      int historyLimit,
      long historyBytesLimit,
      long historyFloor) {
    this.parse = parse;
    this.historyLimit = historyLimit;
    this.historyBytesLimit = historyBytesLimit;
    this.historyFloor = historyFloor;
  }

  /**
   * Keeps {@code event} (dropping the oldest past either limit) and sends it to every watch.
   *
   * @param packed the event's object as committed text in compact form
   * @param previousPacked the object before a MODIFIED change, likewise, else {@code null}
   */
  void publish(Event event, byte[] packed, byte[] previousPacked) {
    // both texts are held: a MODIFIED event counts its object before too
    long kept =
        Objects.requireNonNull(packed).length
            + (previousPacked == null ? 0 : previousPacked.length);
    history.addLast(
        new Kept(
            event.type(),
            event.resource(),
            event.namespace(),
            event.resourceVersion(),
            packed,
            previousPacked,
            kept,
            event.bytes()));
    historyBytes += kept;
    while (history.size() > historyLimit || historyBytes > historyBytesLimit) {
      Kept dropped = history.removeFirst();
      historyBytes -= dropped.bytes();
      historyFloor = dropped.resourceVersion();
    }
    for (Watcher listener : listeners) {
      try {
        deliver(listener, event);
      } catch (RuntimeException e) {
        LOG.error("an in-process listener failed on {}; it stays registered", describe(event), e);
      }
    }
    for (OpenWatch w : watches) {
      try {
        deliver(w.watcher(), event);
      } catch (RuntimeException e) {
        LOG.error(
            "a watch failed on {}; it is ended and its client watches again", describe(event), e);
        watches.remove(w);
        try {
          w.end().run();
        } catch (RuntimeException endFailed) {
          e.addSuppressed(endFailed);
          LOG.error("ending the failed watch failed too", endFailed);
        }
      }
    }
  }

  private static void deliver(Watcher watcher, Event event) {
    if (watcher.matches(event)) {
      watcher.send(event);
    }
  }

  private static String describe(Event event) {
    return event.type()
        + " "
        + event.resource()
        + (event.namespace() == null ? "" : " in " + event.namespace())
        + " at resourceVersion "
        + event.resourceVersion();
  }

  /**
   * Sends {@code watcher} every kept event of {@code resource} (in {@code namespace}, or all when
   * {@code null}) after {@code fromVersion} that it matches.
   *
   * @throws GoneException when {@code fromVersion} is older than the kept history
   */
  void replay(long fromVersion, String resource, String namespace, Watcher watcher)
      throws GoneException {
    if (fromVersion < historyFloor) {
      throw new GoneException(
          "too old resource version: " + fromVersion + " (" + historyFloor + ")");
    }
    for (Kept k : history) {
      if (k.resourceVersion() > fromVersion
          && k.resource().equals(resource)
          && (namespace == null || namespace.equals(k.namespace()))) {
        Event e =
            new Event(
                k.type(),
                k.resource(),
                k.namespace(),
                k.resourceVersion(),
                parse.apply(k.packed()),
                ObjectStore.PreviousObject.of(k.previousPacked(), parse),
                k.textLength());
        if (watcher.matches(e)) {
          watcher.send(e);
        }
      }
    }
  }

  /**
   * Sends every later event to {@code watcher}; the handle returned stops that.
   *
   * @param end ends the watch from the server's side, run once if {@code watcher} throws on an
   *     event
   */
  Runnable open(Watcher watcher, Runnable end) {
    OpenWatch w = new OpenWatch(watcher, end);
    watches.add(w);
    return () -> watches.remove(w);
  }

  /** Registers an in-process listener for every change (used to keep the CRD registry in step). */
  void listen(Watcher watcher) {
    listeners.add(watcher);
  }

  void closeAll() {
    listeners.clear();
    watches.clear();
  }
}
