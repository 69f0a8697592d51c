package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Policy;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An immutable picture of the world for one admission pass: every job with its live status
 * (finished ones included, for dependencies), every node, the policy, the clock's now and the
 * BatchQueues. The pass reads no other clock.
 */
public record Snapshot(
    List<JobView> jobs, List<NodeView> nodes, Policy policy, Instant now, List<QueueView> queues) {

  public Snapshot {
    jobs = List.copyOf(jobs);
    nodes = List.copyOf(nodes);
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(now, "now");
    queues = queues == null ? List.of() : List.copyOf(queues);
  }

  /** A world without BatchQueues: every namespace in the implicit default queue. */
  public Snapshot(List<JobView> jobs, List<NodeView> nodes, Policy policy, Instant now) {
    this(jobs, nodes, policy, now, List.of());
  }

  /** The same world with other jobs and another now (the queues kept). */
  public Snapshot withJobs(List<JobView> newJobs, Instant newNow) {
    return new Snapshot(newJobs, nodes, policy, newNow, queues);
  }
}
