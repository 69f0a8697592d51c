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
  private final EndHeap ends = new EndHeap();

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
   * @param queued the waiting jobs, each of which starts starving {@code starvationAfter} in
   * @param endTimes where each job's expected end is set (empty)
   */
  ForecastTimeline(
      List<PreparedJob> queued, ForecastEntries<Instant> endTimes, Duration starvationAfter) {
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
    return !ends.isEmpty() && !ends.first().at().isAfter(at) ? ends.poll() : null;
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
   * A binary heap of ends ordered by time, then job index, compared on copies of those numbers kept
   * in arrays beside the heap: the thousands of comparisons of a forecast read no {@link End} or
   * {@link Instant} objects.
   */
  private static final class EndHeap {
    private End[] heap = new End[64];
    private long[] seconds = new long[64];
    private int[] nanos = new int[64];
    private int[] jobs = new int[64];
    private int size;

    boolean isEmpty() {
      return size == 0;
    }

    End first() {
      return heap[0];
    }

    void add(End end) {
      if (size == heap.length) {
        int grown = size * 2;
        heap = Arrays.copyOf(heap, grown);
        seconds = Arrays.copyOf(seconds, grown);
        nanos = Arrays.copyOf(nanos, grown);
        jobs = Arrays.copyOf(jobs, grown);
      }
      int i = size++;
      long s = end.at().getEpochSecond();
      int n = end.at().getNano();
      int j = end.job().index;
      while (i > 0) {
        int parent = (i - 1) >>> 1;
        if (!before(s, n, j, parent)) {
          break;
        }
        move(parent, i);
        i = parent;
      }
      set(i, end, s, n, j);
    }

    End poll() {
      End first = heap[0];
      int last = --size;
      End end = heap[last];
      long s = seconds[last];
      int n = nanos[last];
      int j = jobs[last];
      heap[last] = null;
      int i = 0;
      while (true) {
        int child = 2 * i + 1;
        if (child >= last) {
          break;
        }
        if (child + 1 < last
            && before(seconds[child + 1], nanos[child + 1], jobs[child + 1], child)) {
          child++;
        }
        if (!before(seconds[child], nanos[child], jobs[child], s, n, j)) {
          break;
        }
        move(child, i);
        i = child;
      }
      if (last > 0) {
        set(i, end, s, n, j);
      }
      return first;
    }

    /** Whether (s, n, j) comes before the entry at {@code at}. */
    private boolean before(long s, int n, int j, int at) {
      return before(s, n, j, seconds[at], nanos[at], jobs[at]);
    }

    private static boolean before(long s, int n, int j, long s2, int n2, int j2) {
      return s != s2 ? s < s2 : n != n2 ? n < n2 : j < j2;
    }

    private void move(int from, int to) {
      set(to, heap[from], seconds[from], nanos[from], jobs[from]);
    }

    private void set(int at, End end, long s, int n, int j) {
      heap[at] = end;
      seconds[at] = s;
      nanos[at] = n;
      jobs[at] = j;
    }
  }
}
