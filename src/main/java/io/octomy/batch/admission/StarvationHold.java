package io.octomy.batch.admission;

import java.util.List;

/**
 * The node kept for the highest-priority starving job that does not fit now: lower-priority jobs
 * that request any of {@code resources} are not admitted there in this pass.
 */
public record StarvationHold(JobKey starvingJob, String node, List<String> resources) {
  public StarvationHold {
    resources = List.copyOf(resources);
  }
}
