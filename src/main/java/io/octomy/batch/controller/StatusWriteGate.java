package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which composed statuses the admission loop actually writes. It remembers, per job, when its
 * wording was last written, whether a status write of ours is on its way, and which resourceVersion
 * our last write replaced. Thread-safe: the loop asks, the status writers report.
 */
final class StatusWriteGate {

  private final Duration messageRefresh;
  private final ControllerMetrics metrics;
  private final Map<JobKey, Instant> lastMessageWrite = new ConcurrentHashMap<>();

  /**
   * uid to the resourceVersion one of our status writes replaced, until the cache shows a newer
   * one. While the cache still shows that version, the job's status there is known to be stale:
   * writing on it would only be refused (409), and deciding on it could flip what was written.
   */
  private final Map<String, Replaced> writtenOver = new ConcurrentHashMap<>();

  /** The job one of our writes replaced: where the cache keeps it, and the version replaced. */
  private record Replaced(JobKey key, String resourceVersion) {
    boolean stillCached(JobsByKey cache, String uid) {
      BatchJob job = cache.get(key);
      return job != null
          && uid.equals(job.getMetadata().getUid())
          && resourceVersion.equals(job.getMetadata().getResourceVersion());
    }
  }

  /**
   * uids of jobs with a status write of ours sent and not yet answered. A pass runs while the
   * writes of the pass before are still out; it leaves these jobs alone, as it would a job whose
   * cached copy our write replaced, instead of writing on a version that is about to change.
   */
  private final Set<String> sending = ConcurrentHashMap.newKeySet();

  StatusWriteGate(Duration messageRefresh, ControllerMetrics metrics) {
    this.messageRefresh = messageRefresh;
    this.metrics = metrics;
  }

  /**
   * Forgets versions the cache has moved past (a few writes in flight), and jobs that are gone. The
   * wording times, one for nearly every job, are swept only once they outnumber the cached jobs:
   * looking every one up on every pass cost a tenth of a pass over a long queue, and an entry kept
   * for a job gone does no harm (a job created again under its name is written first in full, which
   * sets its time anew), while the sweep keeps them under twice the cached jobs.
   */
  void retain(JobsByKey cache) {
    if (lastMessageWrite.size() > cache.size()) {
      lastMessageWrite.keySet().removeIf(k -> cache.get(k) == null);
    }
    writtenOver.entrySet().removeIf(e -> !e.getValue().stillCached(cache, e.getKey()));
  }

  /**
   * True while a status write of ours to the job is on its way, or landed but the cache still shows
   * the version it replaced: either way the cached status is about to change under us.
   */
  boolean ourWritePending(BatchJob job) {
    if (sending.isEmpty() && writtenOver.isEmpty()) {
      // Nothing of ours is out: the common case between bursts. A lookup would still read a slot
      // of each map's table, which keeps the size of its largest burst: a cache miss per job.
      return false;
    }
    String uid = job.getMetadata().getUid();
    return uid != null
        && (sending.contains(uid)
            || isReplaced(writtenOver.get(uid), job.getMetadata().getResourceVersion()));
  }

  /** A status write of {@code job} (as read from the cache) is about to be sent. */
  void sending(BatchJob job) {
    if (job.getMetadata().getUid() != null) {
      sending.add(job.getMetadata().getUid());
    }
  }

  /**
   * The write of {@code job} got its answer, whatever it was (after {@link #written} when it
   * landed, so the job never looks free of our write in between).
   */
  void answered(BatchJob job) {
    if (job.getMetadata().getUid() != null) {
      sending.remove(job.getMetadata().getUid());
    }
  }

  /** Status writes sent and not yet answered. */
  int sending() {
    return sending.size();
  }

  /**
   * Whether a decided job's status must be written. Never for aging alone; a change in wording only
   * (e.g. how much is free now) at most once per {@code messageRefresh}, so a long queue does not
   * rewrite itself on every admission elsewhere.
   */
  boolean needsWrite(BatchJob job, BatchJobStatus next, Instant now) {
    BatchJobStatus current = job.getStatus();
    if (current == null) {
      return true;
    }
    if (StatusComposer.samePriorityAside(current, next)) {
      return false;
    }
    if (StatusComposer.sameButMessages(current, next) && !wordingFollowsEvents(next)) {
      Instant last = lastMessageWrite.get(key(job));
      if (last != null && Duration.between(last, now).compareTo(messageRefresh) < 0) {
        metrics.statusWriteSkipped();
        return false;
      }
      lastMessageWrite.putIfAbsent(key(job), now);
      if (last == null) {
        return false; // first sighting since start: the refresh clock starts now
      }
    }
    return true;
  }

  /**
   * True for a wait whose wording changes only when something happens to what it waits for, not
   * with every admission elsewhere: a dependency wait's message names the dependencies not done yet
   * and those that do not exist, so a change (one deleted, applied, or done) is news to write at
   * once, and there is no stream of such changes to hold back.
   */
  private static boolean wordingFollowsEvents(BatchJobStatus next) {
    return Reason.WaitingForDependency.code().equals(next.getReason());
  }

  /** A status write of {@code job} (as read from the cache) landed at {@code now}. */
  void written(BatchJob job, Instant now) {
    if (job.getMetadata().getUid() != null && job.getMetadata().getResourceVersion() != null) {
      writtenOver.put(
          job.getMetadata().getUid(),
          new Replaced(key(job), job.getMetadata().getResourceVersion()));
    }
    lastMessageWrite.put(key(job), now);
  }

  private static boolean isReplaced(Replaced replaced, String resourceVersion) {
    return replaced != null && replaced.resourceVersion().equals(resourceVersion);
  }

  private static JobKey key(BatchJob j) {
    return new JobKey(j.getMetadata().getNamespace(), j.getMetadata().getName());
  }
}
