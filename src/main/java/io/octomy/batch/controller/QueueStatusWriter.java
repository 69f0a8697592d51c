package io.octomy.batch.controller;

import io.octomy.batch.admission.QueueStanding;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.vocabulary.ConditionTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes each BatchQueue's status after a pass: what it holds, its share, its counts and its Ready
 * condition. Only when something in it changed, and at most once per {@link #MIN_INTERVAL} per
 * queue, so a busy pool does not turn every admission into a write of every queue (the quiet-system
 * rule BatchJob statuses follow); a change held back is written by a later pass.
 */
final class QueueStatusWriter {

  /** The least time between two status writes of one queue. */
  static final Duration MIN_INTERVAL = Duration.ofSeconds(5);

  private final ClusterWriter writer;
  private final Map<String, Instant> lastWritten = new HashMap<>();

  QueueStatusWriter(ClusterWriter writer) {
    this.writer = writer;
  }

  /** Writes the statuses that changed and are due; returns how many landed. */
  int write(Collection<BatchQueue> queues, List<QueueStanding> standings, Instant now) {
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
      BatchQueueStatus status =
          compose(standing, queue.getStatus(), queue.getMetadata().getGeneration(), now);
      if (status.equals(queue.getStatus())) {
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

  private static String share(double value) {
    return String.format(Locale.ROOT, "%.2f", value);
  }
}
