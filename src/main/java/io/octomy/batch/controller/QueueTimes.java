package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

  /** The written queue times read at the last call, by uid. */
  private Map<String, Read> read = new HashMap<>();

  /**
   * Each job's queue time; {@code now} for a job that has neither a queue time nor a creation time.
   */
  Map<JobKey, Instant> of(Collection<BatchJob> jobs, Instant now) {
    Map<JobKey, Instant> out = new HashMap<>();
    Map<Instant, Instant> lastInSecond = new HashMap<>();
    Map<String, Read> reading = new HashMap<>(read.size() * 2);
    List<BatchJob> fresh = new ArrayList<>();
    for (BatchJob job : jobs) {
      Instant written = written(job, reading);
      if (written != null) {
        out.put(key(job), written);
        lastInSecond.merge(written.truncatedTo(ChronoUnit.SECONDS), written, QueueTimes::later);
      } else {
        fresh.add(job);
      }
    }
    fresh.sort(
        Comparator.comparingLong(QueueTimes::creationOrder)
            .thenComparing(j -> j.getMetadata().getName()));
    for (BatchJob job : fresh) {
      Instant created = Times.parse(job.getMetadata().getCreationTimestamp());
      Instant second = (created == null ? now : created).truncatedTo(ChronoUnit.SECONDS);
      Instant last = lastInSecond.get(second);
      Instant at = last == null ? second : last.plus(1, ChronoUnit.MICROS);
      lastInSecond.put(second, at);
      out.put(key(job), at);
    }
    read = reading;
    return out;
  }

  /**
   * The job's written queue time, read again only when its text is new; kept in {@code reading}.
   */
  private Instant written(BatchJob job, Map<String, Read> reading) {
    String text = job.getStatus() == null ? null : job.getStatus().getQueuedAt();
    String uid = job.getMetadata().getUid();
    if (text == null || uid == null) {
      return Times.parse(text);
    }
    Read last = read.get(uid);
    Read now = last != null && last.text().equals(text) ? last : new Read(text, Times.parse(text));
    reading.put(uid, now);
    return now.at();
  }

  /** The numeric resourceVersion, or the largest long when the server's is not a number. */
  private static long creationOrder(BatchJob job) {
    try {
      return Long.parseLong(job.getMetadata().getResourceVersion());
    } catch (NumberFormatException | NullPointerException e) {
      return Long.MAX_VALUE;
    }
  }

  private static JobKey key(BatchJob job) {
    return new JobKey(job.getMetadata().getNamespace(), job.getMetadata().getName());
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
