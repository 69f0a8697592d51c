package io.octomy.batch.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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

  private final PriorityQueue<End> ends =
      new PriorityQueue<>(
          (a, b) -> {
            int c = a.at().compareTo(b.at());
            return c != 0 ? c : Integer.compare(a.job().index, b.job().index);
          });
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
   * @param jobs how many jobs there are, each of which may get an expected end
   */
  ForecastTimeline(List<PreparedJob> queued, int jobs, Duration starvationAfter) {
    this.endTimes = new ForecastEntries<>(jobs);
    List<Instant> starving = new ArrayList<>();
    for (PreparedJob job : queued) {
      starving.add(job.queuedAt.plus(starvationAfter).plusNanos(1));
    }
    starving.sort(null);
    this.onsets = starving.toArray(Instant[]::new);
  }

  void scheduleEnd(PreparedJob job, int node, Instant at, int depth) {
    ends.add(new End(at, job, node, depth));
    endTimes.set(job.key, at);
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
    Instant at = ends.isEmpty() ? null : ends.peek().at();
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
    return !ends.isEmpty() && !ends.peek().at().isAfter(at) ? ends.poll() : null;
  }

  /** The first job due to be decided again by {@code at}, taken off; {@code null} when none is. */
  PreparedJob decideAgainDue(Instant at) {
    return !timed.isEmpty() && !timed.peek().at().isAfter(at) ? timed.poll().job() : null;
  }

  /** The expected end of every job that has one. */
  Map<JobKey, Instant> endTimes() {
    return endTimes;
  }
}
