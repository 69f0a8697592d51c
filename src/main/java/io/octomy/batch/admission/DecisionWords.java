package io.octomy.batch.admission;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sentences of a pass's waits, one method per reason, from the pass's state at the job's turn.
 * The passes a forecast simulates after the next one read only a decision's reason, what it waits
 * on and where it is admitted, and never show its sentences: they are decided without them ({@link
 * #off}), and every method here then gives the empty sentence without building one.
 */
final class DecisionWords {

  private final PassState state;
  private boolean worded = true;

  /** A request shape seen from a node's own work ({@code origin}) or from others' (-1). */
  private record ShapeFromOrigin(RequestShape shape, int origin) {}

  /**
   * The no-node-fits sentence of each shape and origin this pass has worded. It reads only the
   * job's shape and origin and the nodes' offers, modes and readiness, which no decision of a pass
   * changes: the many identical jobs of an array share one sentence instead of building it each.
   */
  private final Map<ShapeFromOrigin, String> noNodeFitsWords = new HashMap<>();

  DecisionWords(PassState state) {
    this.state = state;
  }

  /**
   * From now on decisions carry no sentences: a Wait's message is empty, and so is a starving job's
   * note (still there, so {@link Decision#starving} holds). For the passes a forecast simulates.
   */
  void off() {
    worded = false;
    noNodeFitsWords.clear(); // the simulated passes change nodes' modes and readiness
  }

  String held(PreparedJob job) {
    return worded ? heldMessage(job.key) : "";
  }

  String backingOff(PreparedJob job) {
    return worded ? backingOffMessage(job.reading.notBefore) : "";
  }

  String dependency(DependencyVerdict verdict) {
    return worded ? verdict.message() : "";
  }

  String locks(List<WaitingOn> blocking) {
    if (!worded) {
      return "";
    }
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    blocking.forEach(w -> byKey.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w.job()));
    List<String> parts = new ArrayList<>();
    byKey.forEach((key, holders) -> parts.add(key + " held by " + String.join(", ", holders)));
    return (byKey.size() == 1 ? "waiting for lock " : "waiting for locks: ")
        + String.join("; ", parts)
        + ".";
  }

  String group(PreparedJob job, List<String> holders) {
    if (!worded) {
      return "";
    }
    int cap = state.reservations().groupCap(job);
    if (cap <= 0) {
      return "waiting for group "
          + job.group()
          + ": its maxRunning is "
          + cap
          + ", so no job of this group may run until the policy raises it.";
    }
    return "waiting for group "
        + job.group()
        + ": at most "
        + cap
        + (cap == 1 ? " job" : " jobs")
        + " of this group may be admitted or running at once in"
        + " namespace "
        + job.key.namespace()
        + ", and "
        + holders.size()
        + (holders.size() == 1 ? " is" : " are")
        + (holders.isEmpty() ? "" : " (" + String.join(", ", holders) + ")")
        + ".";
  }

  String budget(PreparedJob job) {
    return worded
        ? "waiting for budget: "
            + String.join("; ", state.reservations().budgetShortfalls(job))
            + "."
        : "";
  }

  String queueConflict(PreparedJob job) {
    return worded ? state.queueTree().conflictWords(job.key.namespace()) : "";
  }

  String queueCycle(PreparedJob job) {
    return worded ? state.queueTree().cycleWords(job.queue) : "";
  }

  String queueMax(PreparedJob job) {
    return worded
        ? "waiting for queue max: "
            + String.join("; ", state.queueLedger().maxShortfalls(job))
            + "."
        : "";
  }

  /** Held because the protected starving job needs what the job would take: {@code contested}. */
  String contested(String contested) {
    return worded
        ? "held for starving job "
            + state.guard().hold().starvingJob()
            + ": it needs "
            + contested
            + " too, and comes first."
        : "";
  }

  String noNodeFits(PreparedJob job) {
    if (!worded) {
      return "";
    }
    if (job.selectable != null) {
      // The sentence names the selector: not shared by shape alone.
      return CapacityMessages.noNodeFits(state.pool(), job, state.policy().nodeHeartbeatTimeout());
    }
    return noNodeFitsWords.computeIfAbsent(
        new ShapeFromOrigin(job.shape, job.origin),
        key ->
            CapacityMessages.noNodeFits(state.pool(), job, state.policy().nodeHeartbeatTimeout()));
  }

  String gangNoNodeFits(PreparedJob job) {
    return worded
        ? CapacityMessages.gangNoNodeFits(
            state.pool(), state.gangs(), job, state.policy().nodeHeartbeatTimeout())
        : "";
  }

  String bestEffortDeferred(PreparedJob job) {
    return worded
        ? CapacityMessages.bestEffortDeferred(
            state.pool(), job, state.policy().priority().starvationAfter())
        : "";
  }

  String heldForStarvingJob() {
    return worded ? CapacityMessages.heldForStarvingJob(state.guard().hold()) : "";
  }

  String heldForQueueMinimum(QueueMinimumHolds.MinimumHold hold) {
    return worded ? state.minimumHolds().words(hold) : "";
  }

  String waitingForCapacity(PreparedJob job) {
    return worded
        ? CapacityMessages.waitingForCapacity(state.pool(), state.mostFreeNotes(), job)
        : "";
  }

  String gangWaitingForCapacity(PreparedJob job) {
    return worded ? CapacityMessages.gangWaitingForCapacity(state.pool(), state.gangs(), job) : "";
  }

  /** What is held back for a starving job, added to its wait's sentence; "" for none. */
  String capacityNote(String note) {
    return worded && note != null ? note : "";
  }

  /** A starving job's note: what is held back for it, or why nothing can be. */
  String starvationNote(PreparedJob job, Reason reason) {
    return worded ? state.guard().note(job, reason) : "";
  }

  /** The Held sentence, with the command that releases the job. */
  static String heldMessage(JobKey key) {
    return "held: spec.suspend is true, so this job takes no part in admission until it is"
        + " released; release it with kubectl patch bj "
        + key.name()
        + " -n "
        + key.namespace()
        + " --type=merge -p '{\"spec\":{\"suspend\":false}}' and it keeps its place by the time"
        + " it was queued.";
  }

  /** The words of a BackingOff wait, naming when it may run again. */
  static String backingOffMessage(Instant notBefore) {
    return "backing off after a failed run: it may run again from "
        + notBefore.truncatedTo(ChronoUnit.SECONDS)
        + " on.";
  }
}
