package io.octomy.batch.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The events of a forecast in time order ({@link FuturePasses} runs one simulated pass at each):
 * the expected ends of jobs, the times at which a job is decided again whatever else happens, and
 * the moments waiting jobs start starving.
 */
final class ForecastTimeline {

  /** The expected end of a job on a node; {@code depth} counts the ends that led to its start. */
  record End(Instant at, PreparedJob job, int node, int depth) {}

  /** A job to decide again at a given time, whatever else happens. */
  private record Timed(Instant at, PreparedJob job) {}

  /** The expected ends, earliest first (ties by job index). */
  private final EndHeap ends;

  private final PriorityQueue<Timed> timed =
      new PriorityQueue<>(
          (a, b) -> {
            int c = a.at().compareTo(b.at());
            return c != 0 ? c : Integer.compare(a.job().index, b.job().index);
          });
  private final ForecastEntries<Instant> endTimes;
  private final Instant[] onsets;
  private int nextOnset;

  /**
   * @param jobs how many jobs the pass has (job indexes are below it)
   * @param queued the waiting jobs, each of which starts starving {@code starvationAfter} in
   * @param endTimes where each job's expected end is set (empty)
   */
  ForecastTimeline(
      int jobs,
      List<PreparedJob> queued,
      ForecastEntries<Instant> endTimes,
      Duration starvationAfter) {
    this.ends = new EndHeap(jobs);
    this.endTimes = endTimes;
    List<Instant> starving = new ArrayList<>();
    for (PreparedJob job : queued) {
      starving.add(job.queuedAt.plus(starvationAfter).plusNanos(1));
    }
    starving.sort(null);
    this.onsets = starving.toArray(Instant[]::new);
  }

  void scheduleEnd(PreparedJob job, int node, Instant at, int depth) {
    ends.add(new End(at, job, node, depth));
    endTimes.set(job, at);
  }

  void decideAgainAt(Instant at, PreparedJob job) {
    timed.add(new Timed(at, job));
  }

  /**
   * The time of the next event after {@code now}, or {@code null} when there is none. A job
   * starting to starve is an event only while others are held for a starving one ({@code anyHeld}):
   * the protection may move.
   */
  Instant next(Instant now, boolean anyHeld) {
    Instant at = ends.isEmpty() ? null : ends.first().at();
    if (!timed.isEmpty() && (at == null || timed.peek().at().isBefore(at))) {
      at = timed.peek().at();
    }
    while (nextOnset < onsets.length && !onsets[nextOnset].isAfter(now)) {
      nextOnset++;
    }
    if (anyHeld && nextOnset < onsets.length && (at == null || onsets[nextOnset].isBefore(at))) {
      at = onsets[nextOnset];
    }
    return at;
  }

  /** The first end due by {@code at}, taken off the timeline; {@code null} when none is. */
  End endDue(Instant at) {
    return !ends.isEmpty() && !ends.firstAfter(at) ? ends.poll() : null;
  }

  /** The first job due to be decided again by {@code at}, taken off; {@code null} when none is. */
  PreparedJob decideAgainDue(Instant at) {
    return !timed.isEmpty() && !timed.peek().at().isAfter(at) ? timed.poll().job() : null;
  }

  /** The expected end of every job that has one. */
  Map<JobKey, Instant> endTimes() {
    return endTimes;
  }

  /**
   * A binary heap of ends ordered by time, then job index. Each entry is two longs side by side:
   * the end's epoch second, then its nano above the job's index (both fit: nanos need 30 bits,
   * indexes 31), so comparing two entries is comparing two pairs of longs that sit in one cache
   * line, and the heap reads no {@link End} or {@link Instant} while it sorts; the ends themselves
   * are kept by job index, since a job ends once in a forecast.
   */
  private static final class EndHeap {
    private final End[] byJob;
    private long[] keys = new long[128];
    private int size;

    EndHeap(int jobs) {
      this.byJob = new End[jobs];
    }

    boolean isEmpty() {
      return size == 0;
    }

    End first() {
      return byJob[(int) keys[1]];
    }

    /** Whether the first end is after {@code at}; the heap must not be empty. */
    boolean firstAfter(Instant at) {
      long second = at.getEpochSecond();
      return keys[0] != second ? keys[0] > second : (keys[1] >>> 32) > at.getNano();
    }

    void add(End end) {
      int job = end.job().index;
      if (byJob[job] != null) {
        throw new IllegalStateException(end.job().key + " is expected to end twice");
      }
      byJob[job] = end;
      if (2 * size == keys.length) {
        keys = Arrays.copyOf(keys, keys.length * 2);
      }
      long second = end.at().getEpochSecond();
      long nanoAndJob = ((long) end.at().getNano() << 32) | job;
      int i = size++;
      while (i > 0) {
        int parent = (i - 1) >>> 1;
        if (!before(second, nanoAndJob, parent)) {
          break;
        }
        keys[2 * i] = keys[2 * parent];
        keys[2 * i + 1] = keys[2 * parent + 1];
        i = parent;
      }
      keys[2 * i] = second;
      keys[2 * i + 1] = nanoAndJob;
    }

    End poll() {
      End first = first();
      int last = --size;
      long second = keys[2 * last];
      long nanoAndJob = keys[2 * last + 1];
      int i = 0;
      while (true) {
        int child = 2 * i + 1;
        if (child >= last) {
          break;
        }
        if (child + 1 < last && before(keys[2 * child + 2], keys[2 * child + 3], child)) {
          child++;
        }
        if (!before(keys[2 * child], keys[2 * child + 1], second, nanoAndJob)) {
          break;
        }
        keys[2 * i] = keys[2 * child];
        keys[2 * i + 1] = keys[2 * child + 1];
        i = child;
      }
      keys[2 * i] = second;
      keys[2 * i + 1] = nanoAndJob;
      return first;
    }

    /** Whether (second, nanoAndJob) comes before the entry at {@code at}. */
    private boolean before(long second, long nanoAndJob, int at) {
      return before(second, nanoAndJob, keys[2 * at], keys[2 * at + 1]);
    }

    private static boolean before(long second, long nanoAndJob, long second2, long nanoAndJob2) {
      return second != second2 ? second < second2 : nanoAndJob < nanoAndJob2;
    }
  }
}
