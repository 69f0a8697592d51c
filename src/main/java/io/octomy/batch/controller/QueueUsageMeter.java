package io.octomy.batch.controller;

import io.octomy.batch.admission.QueueStanding;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Each BatchQueue's past usage for fair share: request x seconds of what its subtree held, each
 * second weighed by 2^-(age / half-life). Between two passes a queue is taken to hold what the
 * earlier pass left it holding. A queue first seen (a restarted controller) goes on from the value
 * its status keeps, as of the time kept beside it; what was held since that write is counted once,
 * from the usage the status shows, and nothing is counted twice.
 */
final class QueueUsageMeter {

  private static final class Meter {
    Map<String, Double> decayed = new TreeMap<>();
    Map<String, Long> holding = Map.of();
    Instant at;
  }

  private final Duration halfLife;
  private final Map<String, Meter> meters = new HashMap<>();

  QueueUsageMeter(Duration halfLife) {
    this.halfLife = halfLife;
  }

  /** Each queue's past usage as of {@code now}, by name (whole request-seconds). */
  Map<String, Map<String, Long>> at(Collection<BatchQueue> queues, Instant now) {
    Map<String, Map<String, Long>> out = new HashMap<>();
    for (BatchQueue queue : queues) {
      String name = queue.getMetadata().getName();
      Meter m = meters.computeIfAbsent(name, k -> seeded(queue.getStatus(), now));
      out.put(name, rounded(advanced(m, now)));
    }
    meters.keySet().retainAll(out.keySet());
    return out;
  }

  /** Moves each queue's meter to {@code now} and records what it holds from now on. */
  void record(Collection<QueueStanding> standings, Instant now) {
    for (QueueStanding s : standings) {
      Meter m = meters.computeIfAbsent(s.name(), k -> new Meter());
      m.decayed = advanced(m, now);
      m.at = now;
      m.holding = s.usage();
    }
  }

  /** The queue's past usage and when it was taken, for its status. */
  Map<String, Long> decayedUsage(String queue) {
    Meter m = meters.get(queue);
    return m == null ? Map.of() : rounded(m.decayed);
  }

  Instant decayedAt(String queue) {
    Meter m = meters.get(queue);
    return m == null ? null : m.at;
  }

  private Meter seeded(BatchQueueStatus status, Instant now) {
    Meter m = new Meter();
    m.at = now;
    if (status != null && status.getDecayedUsage() != null && status.getDecayedUsageAt() != null) {
      try {
        m.at = Times.parse(status.getDecayedUsageAt());
        status.getDecayedUsage().forEach((k, v) -> m.decayed.put(k, (double) v));
        m.holding = status.getUsage() == null ? Map.of() : status.getUsage();
        if (m.at.isAfter(now)) {
          m.at = now;
        }
      } catch (RuntimeException e) {
        // A value nobody could have written: start afresh rather than stop sharing.
        m.decayed.clear();
        m.at = now;
      }
    }
    return m;
  }

  /** The meter's value at {@code now}: decayed, plus what it held meanwhile (decaying too). */
  private Map<String, Double> advanced(Meter m, Instant now) {
    Map<String, Double> out = new TreeMap<>();
    if (m.at == null) {
      return out;
    }
    double seconds = Math.max(0, Duration.between(m.at, now).toMillis() / 1000.0);
    double halfLifeSeconds = halfLife.toMillis() / 1000.0;
    double fade = Math.pow(2, -seconds / halfLifeSeconds);
    // The integral of a constant holding over the interval, each second faded by its age.
    double heldFor = halfLifeSeconds / Math.log(2) * (1 - fade);
    m.decayed.forEach((k, v) -> out.put(k, v * fade));
    m.holding.forEach((k, v) -> out.merge(k, v * heldFor, Double::sum));
    return out;
  }

  private static Map<String, Long> rounded(Map<String, Double> values) {
    Map<String, Long> out = new TreeMap<>();
    values.forEach(
        (k, v) -> {
          long r = Math.round(v);
          if (r > 0) {
            out.put(k, r);
          }
        });
    return out;
  }
}
