package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which Events go out one by one and which are folded together; no threads, no clock of its own.
 *
 * <p>While at most {@link #RATE} Events of a type (Normal, Warning) are offered in a second, each
 * goes out as it comes, one per job, as Kubernetes' event recorder sends them. An Event that finds
 * {@link #RATE} of its type offered in the second before it (sent or folded), or more than {@link
 * #BACKLOG} waiting to be sent, is not dropped: it is folded with the similar ones (same namespace,
 * type and reason) into one Event carrying their count, sent once the fold is {@link #FOLD_NANOS}
 * old, as Kubernetes' event correlator folds similar Events into one with a count. So a controller
 * deciding faster than {@link #RATE} a second sends a few folded Events per namespace rather than
 * {@link #RATE} more writes a second to the server it is waiting on; and the types are counted
 * apart, so that a flood of admissions never folds a rejection. Every Event offered is accounted
 * for: sent on its own, or counted in exactly one fold.
 *
 * <p>Not thread-safe: {@link EventRecorder} calls it under its lock.
 */
final class EventFolding {

  /** Events of one type offered in a second up to which each goes out on its own. */
  static final int RATE = 100;

  /** The span over which {@link #RATE} is counted. */
  static final long RATE_NANOS = 1_000_000_000L;

  /** Events waiting to be sent beyond which new ones are folded, whatever the rate. */
  static final int BACKLOG = 1000;

  /**
   * How long a fold gathers similar Events before it is sent: in a long burst, one Event per
   * namespace, type and reason every five seconds.
   */
  static final long FOLD_NANOS = 5_000_000_000L;

  /** Job names a folded Event lists before saying how many more. */
  static final int NAMES_SHOWN = 3;

  /** What folded Events have in common. */
  record Similar(String namespace, String type, String reason) {}

  /** Similar Events gathered since {@code since}; the last job's Event is the one kept in full. */
  static final class Fold {
    private final Similar similar;
    private final long since;
    private final List<String> names = new ArrayList<>(NAMES_SHOWN);
    private int count;
    private BatchJob lastJob;
    private JobEvent lastEvent;

    private Fold(Similar similar, long since) {
      this.similar = similar;
      this.since = since;
    }

    private void add(BatchJob job, JobEvent event) {
      count++;
      if (names.size() < NAMES_SHOWN) {
        names.add(job.getMetadata().getName());
      }
      lastJob = job;
      lastEvent = event;
    }

    int count() {
      return count;
    }

    /** The job the folded Event is recorded on: the last one folded, as the correlator does. */
    BatchJob regarding() {
      return lastJob;
    }

    /**
     * E.g. "(combined from 312 similar events on a, b, c and 309 more): admitted on ws-3 ...", the
     * last Event's message after the prefix; a fold of one is that Event as it was.
     */
    JobEvent event() {
      if (count == 1) {
        return lastEvent;
      }
      int more = count - names.size();
      String on = String.join(", ", names) + (more > 0 ? " and " + more + " more" : "");
      return new JobEvent(
          similar.type(),
          similar.reason(),
          "(combined from " + count + " similar events on " + on + "): " + lastEvent.message());
    }
  }

  /** When each of the last {@link #RATE} Events of one type was offered: a ring, oldest next. */
  private static final class RecentOffers {
    private final long[] at = new long[RATE];
    private int next;
    private int size;

    /** Whether fewer than {@link #RATE} were offered after {@code since}. */
    boolean fewerThanRateAfter(long since) {
      return size < RATE || at[next] <= since;
    }

    void add(long now) {
      at[next] = now;
      next = (next + 1) % RATE;
      size = Math.min(RATE, size + 1);
    }
  }

  private final Map<Similar, Fold> folds = new LinkedHashMap<>();
  private final Map<String, RecentOffers> recentByType = new HashMap<>();

  /**
   * Whether the Event goes out on its own (true) or was folded (false).
   *
   * @param waiting Events accepted on their own and not sent yet
   * @param now a monotonic time in nanoseconds
   */
  boolean offer(BatchJob job, JobEvent event, int waiting, long now) {
    RecentOffers recent = recentByType.computeIfAbsent(event.type(), t -> new RecentOffers());
    boolean alone = recent.fewerThanRateAfter(now - RATE_NANOS) && waiting < BACKLOG;
    recent.add(now);
    if (alone) {
      return true;
    }
    Similar key = new Similar(job.getMetadata().getNamespace(), event.type(), event.reason());
    folds.computeIfAbsent(key, k -> new Fold(k, now)).add(job, event);
    return false;
  }

  /** Folds at least {@link #FOLD_NANOS} old, removed: each is one Event to send now. */
  List<Fold> due(long now) {
    return take(now, false);
  }

  /** Every fold, however young, removed: for shutting down without losing one. */
  List<Fold> all() {
    return take(0, true);
  }

  /** Nanoseconds from {@code now} until the oldest fold is due, or -1 when there is none. */
  long nanosUntilDue(long now) {
    long soonest = -1;
    for (Fold f : folds.values()) {
      long wait = Math.max(0, f.since + FOLD_NANOS - now);
      soonest = soonest < 0 ? wait : Math.min(soonest, wait);
    }
    return soonest;
  }

  private List<Fold> take(long now, boolean every) {
    List<Fold> out = new ArrayList<>();
    for (Iterator<Fold> it = folds.values().iterator(); it.hasNext(); ) {
      Fold f = it.next();
      if (every || now - f.since >= FOLD_NANOS) {
        out.add(f);
        it.remove();
      }
    }
    return out;
  }
}
