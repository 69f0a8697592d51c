package io.octomy.batch.admission;

import java.util.Map;

/**
 * How one BatchQueue stands after a pass, for its status: what its subtree holds (this pass's
 * admissions included), its share, its counts, and what is wrong with it, if anything.
 *
 * @param name the queue's name
 * @param usage resource name to what its subtree's admitted and running jobs request together
 * @param dominantShare the largest, over the resources, of usage / what the ready nodes offer
 * @param deservedShare its part of the pool among the queues with work (weights, level by level)
 * @param fairShareTerm the fair-share term its Queued jobs add to their effective priority, from
 *     the same holdings as dominantShare (the whole {@code priority.fairShareWeight} when it and
 *     its ancestors hold nothing)
 * @param pending its subtree's Queued jobs not admitted by the pass
 * @param admitted its subtree's Admitted and Running jobs, this pass's admissions included
 * @param problem why its jobs wait whatever else happens (a namespace another queue claims too, a
 *     cycle of parents), as a sentence; null when none
 */
public record QueueStanding(
    String name,
    Map<String, Long> usage,
    double dominantShare,
    double deservedShare,
    long fairShareTerm,
    long pending,
    long admitted,
    String problem) {

  public QueueStanding {
    usage = Map.copyOf(usage);
  }
}
