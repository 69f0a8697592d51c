package io.octomy.batch.controller;

import io.octomy.batch.admission.QueueStanding;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.StatusFields;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes each BatchQueue's status after a pass: what it holds, its share and fair-share term, its
 * counts, its Ready condition and its decayed past usage. Only when something in it changed, and at
 * most once per {@link #MIN_INTERVAL} per queue, so a busy pool does not turn every admission into
 * a write of every queue (the quiet-system rule BatchJob statuses follow); a change held back is
 * written by a later pass. The past usage changes all the time: it goes out with any other change,
 * and on its own only once the value kept is {@link #KEEP_USAGE_EVERY} old (what a restart would
 * lose). The fair-share term drifts with it (a point at a time as past usage decays): on its own it
 * is written only once it has moved by 1 % or more.
 */
final class QueueStatusWriter {

  /** The least time between two status writes of one queue. */
  static final Duration MIN_INTERVAL = Duration.ofSeconds(5);

  /** The oldest a kept past usage may grow before it is written on its own. */
  static final Duration KEEP_USAGE_EVERY = Duration.ofMinutes(5);

  private final ClusterWriter writer;
  private final Map<String, Instant> lastWritten = new HashMap<>();

  QueueStatusWriter(ClusterWriter writer) {
    this.writer = writer;
  }

  /** Writes the statuses that changed and are due; returns how many landed. */
  int write(
      Collection<BatchQueue> queues,
      List<QueueStanding> standings,
      QueueUsageMeter usage,
      Instant now) {
    Map<String, QueueStanding> byName = new HashMap<>();
    standings.forEach(s -> byName.put(s.name(), s));
    lastWritten.keySet().retainAll(byName.keySet());
    int landed = 0;
    for (BatchQueue queue : queues) {
      String name = queue.getMetadata().getName();
      QueueStanding standing = byName.get(name);
      if (standing == null) {
        continue;
      }
      BatchQueueStatus current = queue.getStatus();
      BatchQueueStatus status =
          compose(standing, current, queue.getMetadata().getGeneration(), now);
      Instant measuredAt = usage.decayedAt(name);
      status.setDecayedUsage(usage.decayedUsage(name));
      status.setDecayedUsageAt(measuredAt == null ? null : Times.format(measuredAt));
      if (withoutDrift(status).equals(withoutDrift(current))
          && !usageDue(current, status, now)
          && !termMoved(current, status)) {
        continue;
      }
      Instant last = lastWritten.get(name);
      if (last != null && now.isBefore(last.plus(MIN_INTERVAL))) {
        continue;
      }
      if (writer.writeQueueStatus(queue, status) == ClusterWriter.Result.WRITTEN) {
        lastWritten.put(name, now);
        landed++;
      }
    }
    return landed;
  }

  /** The status a queue should have: its standing, and Ready with why when it is not. */
  static BatchQueueStatus compose(
      QueueStanding standing, BatchQueueStatus current, Long generation, Instant now) {
    BatchQueueStatus s = new BatchQueueStatus();
    s.setUsage(standing.usage());
    s.setShare(share(standing.dominantShare()) + "/" + share(standing.deservedShare()));
    s.setFairShareTerm(standing.fairShareTerm());
    s.setPending(standing.pending());
    s.setAdmitted(standing.admitted());
    boolean ready = standing.problem() == null;
    s.setConditions(
        Conditions.set(
            current == null ? null : current.getConditions(),
            ConditionTypes.READY,
            ready,
            ready
                ? "InForce"
                : standing.problem().startsWith("namespace") ? "NamespaceConflict" : "ParentCycle",
            ready ? "its spec is in force." : standing.problem(),
            generation,
            now));
    return s;
  }

  /** The status without the fields that drift on their own: the past usage and the term. */
  private static BatchQueueStatus withoutDrift(BatchQueueStatus status) {
    if (status == null) {
      return null;
    }
    BatchQueueStatus copy = StatusFields.of(BatchQueueStatus.class).copy(status);
    copy.setDecayedUsage(null);
    copy.setDecayedUsageAt(null);
    copy.setFairShareTerm(null);
    return copy;
  }

  /** True when the term is new, or 1 % or more away from the one the status keeps. */
  private static boolean termMoved(BatchQueueStatus current, BatchQueueStatus next) {
    Long kept = current == null ? null : current.getFairShareTerm();
    long now = next.getFairShareTerm();
    return kept == null || Math.abs(now - kept) * 100 >= Math.max(1, Math.max(now, kept));
  }

  /**
   * True when the past usage the status keeps is missing, or older than {@link #KEEP_USAGE_EVERY}
   * and more than 1 % off the one measured now (so a queue whose usage has faded away, or stays
   * flat, is not written again and again).
   */
  private static boolean usageDue(BatchQueueStatus current, BatchQueueStatus next, Instant now) {
    if (current == null || current.getDecayedUsageAt() == null) {
      return true;
    }
    try {
      if (now.isBefore(Times.parse(current.getDecayedUsageAt()).plus(KEEP_USAGE_EVERY))) {
        return false;
      }
    } catch (RuntimeException e) {
      return true;
    }
    Map<String, Long> kept =
        current.getDecayedUsage() == null ? Map.of() : current.getDecayedUsage();
    Map<String, Long> measured = next.getDecayedUsage();
    if (!kept.keySet().equals(measured.keySet())) {
      return true;
    }
    for (Map.Entry<String, Long> e : measured.entrySet()) {
      if (Math.abs(e.getValue() - kept.get(e.getKey())) * 100 > Math.max(1, e.getValue())) {
        return true;
      }
    }
    return false;
  }

  private static String share(double value) {
    return String.format(Locale.ROOT, "%.2f", value);
  }
}
