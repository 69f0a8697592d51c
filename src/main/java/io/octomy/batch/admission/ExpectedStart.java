package io.octomy.batch.admission;

import java.time.Instant;
import java.util.Objects;

/**
 * When a Queued job is expected to be admitted, if nothing but the predicted ends of jobs changes.
 *
 * @param at the time of the pass expected to admit it (the snapshot's now when the next pass does)
 * @param node the node it is expected to go to
 * @param after the job whose expected end makes room for it; null when the next pass admits it
 * @param predictedEnds how many predicted run ends the estimate rests on, one after the other (0
 *     for the next pass): the longer the chain, the less sure the time
 */
public record ExpectedStart(JobKey job, Instant at, String node, JobKey after, int predictedEnds) {
  public ExpectedStart {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(node, "node");
  }
}
