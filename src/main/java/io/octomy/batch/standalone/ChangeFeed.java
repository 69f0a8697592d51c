package io.octomy.batch.standalone;

import io.octomy.batch.standalone.ObjectStore.Event;
import io.octomy.batch.standalone.ObjectStore.GoneException;
import io.octomy.batch.standalone.ObjectStore.Watcher;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The committed events as watches see them: the recent ones, kept so that a watch can resume from a
 * resourceVersion, and the open watches each new one is sent to.
 *
 * <p>Every method but {@link #listen} runs under {@link ObjectStore}'s write lock, so events are
 * kept and sent in resourceVersion order and a watch misses none between its replay and its first
 * live event.
 */
final class ChangeFeed {

  private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
  private final ArrayDeque<Event> history = new ArrayDeque<>();
  private final int historyLimit;
  private final long historyBytesLimit;
  private long historyBytes;

  /** Every event with a resourceVersion above this one is still in {@link #history}. */
  private long historyFloor;

  /**
   * @param historyFloor the resourceVersion the store starts at: no older event is kept
   */
  ChangeFeed(int historyLimit, long historyBytesLimit, long historyFloor) {
    this.historyLimit = historyLimit;
    this.historyBytesLimit = historyBytesLimit;
    this.historyFloor = historyFloor;
  }

  /** Keeps {@code event} (dropping the oldest past either limit) and sends it to every watch. */
  void publish(Event event) {
    history.addLast(event);
    historyBytes += event.bytes();
    while (history.size() > historyLimit || historyBytes > historyBytesLimit) {
      Event dropped = history.removeFirst();
      historyBytes -= dropped.bytes();
      historyFloor = dropped.resourceVersion();
    }
    for (Watcher w : watchers) {
      if (w.matches(event)) {
        w.send(event);
      }
    }
  }

  /**
   * Sends {@code watcher} every kept event after {@code fromVersion} that it matches.
   *
   * @throws GoneException when {@code fromVersion} is older than the kept history
   */
  void replay(long fromVersion, Watcher watcher) throws GoneException {
    if (fromVersion < historyFloor) {
      throw new GoneException(
          "too old resource version: " + fromVersion + " (" + historyFloor + ")");
    }
    for (Event e : history) {
      if (e.resourceVersion() > fromVersion && watcher.matches(e)) {
        watcher.send(e);
      }
    }
  }

  /** Sends every later event to {@code watcher}; the handle returned ends it. */
  Runnable open(Watcher watcher) {
    watchers.add(watcher);
    return () -> watchers.remove(watcher);
  }

  /** Registers an in-process listener for every change (used to keep the CRD registry in step). */
  void listen(Watcher watcher) {
    watchers.add(watcher);
  }

  void closeAll() {
    watchers.clear();
  }
}
