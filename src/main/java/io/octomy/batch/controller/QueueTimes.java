package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * When each job entered the queue, to the microsecond, so that jobs of equal priority created
 * within the same second keep the order they were created in rather than their names' order.
 *
 * <p>Kubernetes keeps {@code creationTimestamp} to the second only. A job already decided about
 * keeps the {@code status.queuedAt} written then. A job seen for the first time gets its creation
 * second plus as many microseconds as jobs of that second were queued before it: those already
 * written first, then the new ones in the order the API server created them (their numeric
 * resourceVersion, as etcd and the embedded server hand them out; then their name). The first job
 * of a second keeps the whole second, so a queue without ties reads as before.
 *
 * <p>Every pass asks for the queue times of every job, and most jobs' written times are the same
 * text as at the pass before: each is read once and kept, by uid, while its text stays the same
 * (reading the timestamps was nearly half of building a snapshot).
 */
final class QueueTimes {

  /** A written queue time as read: the text and what it says. */
  private record Read(String text, Instant at) {}

  /**
   * The written queue times read so far, by uid: an entry is used only while its text is the job's
   * text, and entries of jobs gone are dropped at the next call that finds some.
   */
  private final Map<String, Read> read = new HashMap<>();

  /**
   * Each job's queue time, in the order of {@code jobs}; {@code now} for a job that has neither a
   * queue time nor a creation time. A list by position, not a map by key: the caller walks the same
   * list, and a pass over ten thousand jobs then builds no key and no map entry per job.
   */
  List<Instant> of(List<BatchJob> jobs, Instant now) {
    Instant[] out = new Instant[jobs.size()];
    List<Integer> fresh = new ArrayList<>(0);
    int kept = 0;
    for (int i = 0; i < out.length; i++) {
      BatchJob job = jobs.get(i);
      String text = job.getStatus() == null ? null : job.getStatus().getQueuedAt();
      String uid = job.getMetadata().getUid();
      if (text != null && uid != null) {
        Read last = read.get(uid);
        if (last == null || !last.text().equals(text)) {
          last = new Read(text, Times.parse(text));
          read.put(uid, last);
        }
        kept++;
        out[i] = last.at();
      } else {
        out[i] = Times.parse(text);
      }
      if (out[i] == null) {
        fresh.add(i);
      }
    }
    if (read.size() > kept) {
      forgetGone(jobs);
    }
    if (!fresh.isEmpty()) {
      queueFresh(jobs, fresh, out, now);
    }
    return Arrays.asList(out);
  }

  /**
   * Jobs seen for the first time: after the written times of their creation second, in the order
   * the server created them.
   */
  private static void queueFresh(
      List<BatchJob> jobs, List<Integer> fresh, Instant[] out, Instant now) {
    Map<Instant, Instant> lastInSecond = new HashMap<>();
    for (Instant written : out) {
      if (written != null) {
        lastInSecond.merge(written.truncatedTo(ChronoUnit.SECONDS), written, QueueTimes::later);
      }
    }
    fresh.sort(
        Comparator.comparingLong((Integer i) -> creationOrder(jobs.get(i)))
            .thenComparing(i -> jobs.get(i).getMetadata().getName()));
    for (int i : fresh) {
      Instant created = Times.parse(jobs.get(i).getMetadata().getCreationTimestamp());
      Instant second = (created == null ? now : created).truncatedTo(ChronoUnit.SECONDS);
      Instant last = lastInSecond.get(second);
      Instant at = last == null ? second : last.plus(1, ChronoUnit.MICROS);
      lastInSecond.put(second, at);
      out[i] = at;
    }
  }

  /** Drops the reads of jobs no longer among {@code jobs} with a written queue time. */
  private void forgetGone(List<BatchJob> jobs) {
    Set<String> live = new HashSet<>(jobs.size() * 2);
    for (BatchJob job : jobs) {
      if (job.getStatus() != null && job.getStatus().getQueuedAt() != null) {
        live.add(job.getMetadata().getUid());
      }
    }
    read.keySet().retainAll(live);
  }

  /** The numeric resourceVersion, or the largest long when the server's is not a number. */
  private static long creationOrder(BatchJob job) {
    try {
      return Long.parseLong(job.getMetadata().getResourceVersion());
    } catch (NumberFormatException | NullPointerException e) {
      return Long.MAX_VALUE;
    }
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
