package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Policy;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An immutable picture of the world for one admission pass: every job with its live status
 * (finished ones included, for dependencies), every node, the policy, the clock's now, the
 * BatchQueues, and the array jobs a forecast completes with their items to come ({@link
 * ArrayShape}; the pass itself does not read them). The pass reads no other clock.
 */
public record Snapshot(
    List<JobView> jobs,
    List<NodeView> nodes,
    Policy policy,
    Instant now,
    List<QueueView> queues,
    List<ArrayShape> arrays) {

  public Snapshot {
    jobs = List.copyOf(jobs);
    nodes = List.copyOf(nodes);
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(now, "now");
    queues = queues == null ? List.of() : List.copyOf(queues);
    arrays = arrays == null ? List.of() : List.copyOf(arrays);
  }

  /** A world without array jobs still to complete. */
  public Snapshot(
      List<JobView> jobs,
      List<NodeView> nodes,
      Policy policy,
      Instant now,
      List<QueueView> queues) {
    this(jobs, nodes, policy, now, queues, List.of());
  }

  /** A world without BatchQueues: every namespace in the implicit default queue. */
  public Snapshot(List<JobView> jobs, List<NodeView> nodes, Policy policy, Instant now) {
    this(jobs, nodes, policy, now, List.of());
  }

  /** The same world with other jobs and another now (the queues and arrays kept). */
  public Snapshot withJobs(List<JobView> newJobs, Instant newNow) {
    return new Snapshot(newJobs, nodes, policy, newNow, queues, arrays);
  }

  /** The same world with these array jobs to complete in a forecast. */
  public Snapshot withArrays(List<ArrayShape> newArrays) {
    return new Snapshot(jobs, nodes, policy, now, queues, newArrays);
  }
}
