package io.octomy.batch.admission;

import java.util.Objects;

/**
 * The fair-share term in one Queued job's effective priority, with the numbers behind it.
 *
 * @param queue the job's BatchQueue ("the default queue" for a namespace no queue claims)
 * @param weight the queue's weight among its siblings
 * @param share what its subtree holds now and ran (decayed), as a dominant share of the pool
 * @param deserved its part of the pool among the queues with work (weights, level by level)
 * @param term what the term adds to the job's effective priority
 * @param most the most the term can add ({@code priority.fairShareWeight})
 */
public record FairShareTerm(
    String queue, long weight, double share, double deserved, long term, long most) {
  public FairShareTerm {
    Objects.requireNonNull(queue, "queue");
  }
}
