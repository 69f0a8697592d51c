package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Policy;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An immutable picture of the world for one admission pass: every job with its live status
 * (finished ones included, for dependencies), every node, the policy and the clock's now. The pass
 * reads no other clock.
 */
public record Snapshot(List<JobView> jobs, List<NodeView> nodes, Policy policy, Instant now) {

  public Snapshot {
    jobs = List.copyOf(jobs);
    nodes = List.copyOf(nodes);
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(now, "now");
  }
}
