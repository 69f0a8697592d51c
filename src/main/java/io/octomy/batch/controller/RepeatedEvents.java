package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Events this controller recorded, remembered by what makes two of them the same, so that an
 * Event identical to one already recorded raises that one's count rather than adding a second, as
 * Kubernetes' event correlator records a repeat: {@code kubectl describe} then shows one line "x2
 * over 40s", not two identical lines. Identical means the same object (by uid), type, reason and
 * message; an Event whose message differs is new.
 *
 * <p>Bounded as the correlator's cache is ({@link #REMEMBERED} entries, the least recently recorded
 * forgotten first), and kept in memory only: after a restart, or once an entry is forgotten, a
 * repeat is a new Event again. Thread-safe.
 */
final class RepeatedEvents {

  /** Events remembered, as many as client-go's correlator keeps. */
  static final int REMEMBERED = 4096;

  /** What two identical Events share. */
  record Identical(
      String namespace, String uid, String name, String type, String reason, String message) {

    static Identical of(BatchJob job, JobEvent event) {
      return new Identical(
          job.getMetadata().getNamespace(),
          job.getMetadata().getUid(),
          job.getMetadata().getName(),
          event.type(),
          event.reason(),
          event.message());
    }
  }

  /**
   * An Event as recorded on the server.
   *
   * @param eventName the Event object's name
   * @param count how many identical Events it stands for
   */
  record Recorded(String eventName, int count) {}

  private final Map<Identical, Recorded> recorded =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Identical, Recorded> eldest) {
          return size() > REMEMBERED;
        }
      };

  /** The Event recorded for {@code event}'s kind on its object, or null when there is none. */
  synchronized Recorded last(Identical event) {
    return recorded.get(event);
  }

  /** Remembers where an Event of this kind stands now. */
  synchronized void recorded(Identical event, Recorded now) {
    recorded.put(event, now);
  }

  /** Forgets an Event the server no longer holds (expired or deleted): a repeat is new. */
  synchronized void forget(Identical event) {
    recorded.remove(event);
  }
}
