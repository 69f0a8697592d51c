package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which Events go out one by one and which are folded together; no threads, no clock of its own.
 *
 * <p>Up to {@link #RATE} Events a second (with a burst of {@link #BURST}) go out as they come, one
 * per job, as Kubernetes' event recorder sends them. Beyond that rate, or while more than {@link
 * #BACKLOG} wait to be sent, an Event is not dropped: it is folded with the similar ones (same
 * namespace, type and reason) into one Event carrying their count, sent once the fold is {@link
 * #FOLD_NANOS} old, as Kubernetes' event correlator folds similar Events into one with a count.
 * Every Event offered is accounted for: sent on its own, or counted in exactly one fold.
 *
 * <p>Not thread-safe: {@link EventRecorder} calls it under its lock.
 */
final class EventFolding {

  /** Events a second sent one by one, sustained. */
  static final int RATE = 100;

  /** Events sent one by one in a burst before the rate applies. */
  static final int BURST = 100;

  /** Events waiting to be sent beyond which new ones are folded, whatever the rate. */
  static final int BACKLOG = 1000;

  /** How long a fold gathers similar Events before it is sent. */
  static final long FOLD_NANOS = 1_000_000_000L;

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
     * last Event's message after the prefix.
     */
    JobEvent event() {
      int more = count - names.size();
      String on = String.join(", ", names) + (more > 0 ? " and " + more + " more" : "");
      return new JobEvent(
          similar.type(),
          similar.reason(),
          "(combined from " + count + " similar events on " + on + "): " + lastEvent.message());
    }
  }

  private final Map<Similar, Fold> folds = new LinkedHashMap<>();
  private double tokens = BURST;
  private long refilledAt;
  private boolean started;

  /**
   * Whether the Event goes out on its own (true) or was folded (false).
   *
   * @param waiting Events accepted on their own and not sent yet
   * @param now a monotonic time in nanoseconds
   */
  boolean offer(BatchJob job, JobEvent event, int waiting, long now) {
    refill(now);
    if (tokens >= 1 && waiting < BACKLOG) {
      tokens--;
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

  private void refill(long now) {
    if (!started) {
      started = true;
      refilledAt = now;
      return;
    }
    long elapsed = now - refilledAt;
    if (elapsed > 0) {
      tokens = Math.min(BURST, tokens + elapsed * (RATE / 1e9));
      refilledAt = now;
    }
  }
}
