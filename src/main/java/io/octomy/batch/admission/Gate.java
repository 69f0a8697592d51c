package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One check a Queued job fails at its turn in a pass, with the numbers behind it. A {@link
 * GateReport} lists every gate a job fails, in the order the pass checks them; the first one is the
 * one the pass decides on.
 */
public sealed interface Gate {

  /** The reason the pass gives when this is the first gate a job fails. */
  Reason reason();

  /** {@code spec.suspend} is true: the job takes no part in admission until it is released. */
  record Held(String message) implements Gate {
    public Held {
      Objects.requireNonNull(message, "message");
    }

    @Override
    public Reason reason() {
      return Reason.Held;
    }
  }

  /** A failed run's retry waits out its back-off until {@code until}. */
  record BackingOff(Instant until, String message) implements Gate {
    public BackingOff {
      Objects.requireNonNull(until, "until");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public Reason reason() {
      return Reason.BackingOff;
    }
  }

  /** The spec is invalid; each problem is a sentence that says what to write instead. */
  record InvalidSpec(List<String> problems) implements Gate {
    public InvalidSpec {
      problems = List.copyOf(problems);
    }

    @Override
    public Reason reason() {
      return Reason.InvalidSpec;
    }
  }

  /** The job is part of a dependency cycle; the message names it. */
  record DependencyCycle(String message) implements Gate {
    public DependencyCycle {
      Objects.requireNonNull(message, "message");
    }

    @Override
    public Reason reason() {
      return Reason.DependencyCycle;
    }
  }

  /** An ancestor failed, was skipped or was rejected: the job can never run. */
  record DependencyFailed(String ancestor, String message) implements Gate {
    public DependencyFailed {
      Objects.requireNonNull(ancestor, "ancestor");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public Reason reason() {
      return Reason.DependencyFailed;
    }
  }

  /** Dependencies that have not succeeded yet, each with its phase (null: it does not exist). */
  record Dependencies(List<PendingDependency> pending) implements Gate {
    public Dependencies {
      pending = List.copyOf(pending);
    }

    @Override
    public Reason reason() {
      return Reason.WaitingForDependency;
    }
  }

  /** A dependency not succeeded yet; {@code phase} is null when no such job exists (yet). */
  record PendingDependency(String name, JobPhase phase) {
    public PendingDependency {
      Objects.requireNonNull(name, "name");
    }
  }

  /** A lock of the job that others hold. */
  record Lock(String key, List<String> holders) implements Gate {
    public Lock {
      Objects.requireNonNull(key, "key");
      holders = List.copyOf(holders);
    }

    @Override
    public Reason reason() {
      return Reason.WaitingForLock;
    }
  }

  /** The job's group is at its cap in the namespace ({@code holders} take its slots). */
  record Group(String group, int maxRunning, List<String> holders) implements Gate {
    public Group {
      Objects.requireNonNull(group, "group");
      holders = List.copyOf(holders);
    }

    @Override
    public Reason reason() {
      return Reason.WaitingForGroup;
    }
  }

  /** One budgeted resource the namespace cannot grant now: inUse + request > limit. */
  record Budget(String namespace, String resource, long request, long inUse, long limit)
      implements Gate {
    public Budget {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(resource, "resource");
    }

    @Override
    public Reason reason() {
      return Reason.WaitingForBudget;
    }
  }

  /**
   * The job's BatchQueue stands in the way: its namespace is claimed by two queues (QueueConflict),
   * its queue is in or below a cycle of parents (QueueCycle), or the queue (or one above it) is at
   * its max (WaitingForQueueMax). The message says which, with the numbers.
   */
  record Queue(Reason reason, String message) implements Gate {
    public Queue {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * A starving job of higher priority needs something this job would take first: one of its locks,
   * the last free slot of its group, or what is left of the namespace budget ({@code what} says
   * which).
   */
  record Contested(JobKey starvingJob, String what) implements Gate {
    public Contested {
      Objects.requireNonNull(starvingJob, "starvingJob");
      Objects.requireNonNull(what, "what");
    }

    @Override
    public Reason reason() {
      return Reason.HeldForStarvingJob;
    }
  }

  /**
   * No ready node has the job's requests free now. {@code everHolds} says whether some eligible
   * node's full offer holds them (WaitingForCapacity) or none does (NoNodeFits). {@code nodes} are
   * the closest candidates, closest first.
   *
   * @param readyNodes ready nodes in the snapshot
   * @param selectedNodes ready nodes whose labels match the job's nodeSelector (all ready nodes
   *     without one)
   * @param eligibleNodes ready nodes it selects whose mode for this job is not Off
   * @param gang for a gang, how many of its replicas the nodes hold now and ever; null for a job of
   *     one replica (then {@code nodes} and {@code everHolds} are about one copy of its requests,
   *     as they are for each replica of a gang)
   * @param labels the labels its node must carry, by label: its spec.nodeSelector and its queues'
   * @param labelsAskedBy who asks for them, e.g. "spec.nodeSelector and queue gpu's nodeSelector"
   * @param labelConflict the sentence of a label asked for with two values; null when none
   */
  record Capacity(
      boolean everHolds,
      int readyNodes,
      int selectedNodes,
      int eligibleNodes,
      List<NodeRoom> nodes,
      GangRoom gang,
      Map<String, String> labels,
      String labelsAskedBy,
      String labelConflict)
      implements Gate {
    public Capacity {
      nodes = List.copyOf(nodes);
      labels = labels == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /** A job of one replica. */
    public Capacity(
        boolean everHolds,
        int readyNodes,
        int selectedNodes,
        int eligibleNodes,
        List<NodeRoom> nodes) {
      this(
          everHolds,
          readyNodes,
          selectedNodes,
          eligibleNodes,
          nodes,
          null,
          Map.of(),
          "spec.nodeSelector",
          null);
    }

    @Override
    public Reason reason() {
      return everHolds ? Reason.WaitingForCapacity : Reason.NoNodeFits;
    }
  }

  /**
   * The room a gang finds: copies of its requests the nodes it may use have free now and hold in
   * their full offers, each counted up to its replicas.
   */
  record GangRoom(int replicas, long roomNow, long roomEver) {}

  /** The job fits now only on the node kept for a starving job. */
  record HeldNode(JobKey starvingJob, String node) implements Gate {
    public HeldNode {
      Objects.requireNonNull(starvingJob, "starvingJob");
      Objects.requireNonNull(node, "node");
    }

    @Override
    public Reason reason() {
      return Reason.HeldForStarvingJob;
    }
  }

  /**
   * The job fits now only on a node kept for another queue reclaiming its min: {@code queue}'s next
   * job {@code forJob} needs what this one would take there. The message has the queue's numbers.
   */
  record QueueMinimum(String queue, JobKey forJob, String node, String message) implements Gate {
    public QueueMinimum {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(forJob, "forJob");
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public Reason reason() {
      return Reason.HeldForQueueMinimum;
    }
  }

  /**
   * A BestEffort job that is not starving waits while every ready node it could run on is busy
   * (measures at least as much of a resource in use as it offers); {@code busy} names up to three.
   */
  record Deferred(List<BusyNode> busy, int moreBusy, Duration starvationAfter) implements Gate {
    public Deferred {
      busy = List.copyOf(busy);
      Objects.requireNonNull(starvationAfter, "starvationAfter");
    }

    @Override
    public Reason reason() {
      return Reason.BestEffortDeferred;
    }
  }

  /** A node busy for a job: it measures {@code inUse} of a resource, at or above its offer. */
  record BusyNode(String node, NodeMode mode, String resource, long inUse, long offer) {
    public BusyNode {
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(resource, "resource");
    }
  }

  /**
   * What one candidate node has for the job now.
   *
   * @param mode the mode that applies to this job there ({@code ownMode} on its origin)
   * @param resources one entry per requested resource, by name
   */
  record NodeRoom(String node, NodeMode mode, boolean origin, List<Room> resources) {
    public NodeRoom {
      Objects.requireNonNull(node, "node");
      resources = List.copyOf(resources);
    }

    /** True when every request fits the node's full offer. */
    public boolean offerHolds() {
      return resources.stream().allMatch(r -> r.request() <= r.offer());
    }
  }

  /** One requested resource on one node: what the job asks, the offer, what is allocated. */
  record Room(String resource, long request, long offer, long allocated) {
    /** Offer minus allocation, never below 0. */
    public long free() {
      return Math.max(0, offer - allocated);
    }

    /** How much more must be free before the request fits; 0 when it fits now. */
    public long shortfall() {
      return Math.max(0, request - free());
    }
  }
}
