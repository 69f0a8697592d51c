package io.octomy.batch.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The one starving job a pass protects, and what it keeps from lower-priority jobs meanwhile.
 *
 * <p>The first starving job in pass order whose wait can end (it waits for a lock, a group slot,
 * budget or capacity) becomes the protected job, whatever it waits on: for the rest of the pass no
 * lower-priority job of its namespace takes one of its locks, the last free slot of its group, or
 * budget it would then lack; and when it waits for capacity, the node where it would fit soonest is
 * kept for it. All of it at once, so that when one wait ends the next cannot begin: a job that
 * waits for a lock would otherwise find its group full or its budget spent once the lock is free.
 *
 * <p>A starving job whose wait cannot be shortened by holding anything back (a dependency, no node
 * that could ever hold it, whatever else it waits for first, more than the whole budget, a group
 * that may run nothing) protects nothing, and its Starving condition says so.
 */
final class StarvationGuard {

  private final NodePool pool;
  private final Placement placement;
  private final Reservations reservations;
  private final ResourceIndex resources;
  private final Duration starvationAfter;

  private PreparedJob protectedJob;
  private int node = -1;

  /** Every node kept for the protected job ({@link #node} first); more than one for a gang. */
  private int[] nodes = new int[0];

  private int[] nodeResources = new int[0];
  private StarvationHold hold;

  StarvationGuard(
      NodePool pool,
      Placement placement,
      Reservations reservations,
      ResourceIndex resources,
      Duration starvationAfter) {
    this.pool = pool;
    this.placement = placement;
    this.reservations = reservations;
    this.resources = resources;
    this.starvationAfter = starvationAfter;
  }

  /** The protected starving job of this pass, or null. */
  PreparedJob protectedJob() {
    return protectedJob;
  }

  /** The hold of this pass, or null. */
  StarvationHold hold() {
    return hold;
  }

  /** The node {@code job} may not take (kept for the protected job), or -1. */
  int excludedNodeFor(PreparedJob job) {
    return node >= 0 && job.requestsAnyOf(nodeResources) ? node : -1;
  }

  /** Every node {@code job} may not take (kept for the protected job); empty when none. */
  int[] excludedNodesFor(PreparedJob job) {
    return node >= 0 && job.requestsAnyOf(nodeResources) ? nodes : new int[0];
  }

  /**
   * What {@code job} would take from the protected job (its lock, the last slot of its group, the
   * budget it needs), as a phrase; null when nothing.
   */
  String contested(PreparedJob job) {
    if (protectedJob == null || protectedJob.namespace != job.namespace) {
      return null; // locks, groups and budgets are scoped to the namespace
    }
    for (int k = 0; k < job.lockIds.length; k++) {
      for (int lock : protectedJob.lockIds) {
        if (lock == job.lockIds[k]) {
          return "lock " + job.lockKeys.get(k);
        }
      }
    }
    if (job.groupId >= 0
        && job.groupId == protectedJob.groupId
        && reservations.freeGroupSlots(job) <= 1) {
      return "the last free slot of group " + job.group();
    }
    String budget = reservations.budgetTakenFrom(protectedJob, job);
    return budget == null ? null : "what is left of the namespace's " + budget + " budget";
  }

  /**
   * A starving job waits for {@code reason}: it becomes the protected job when none is yet and its
   * wait can end. For capacity the node where it would fit soonest is kept too; the returned text
   * is then appended to its message (else null).
   */
  String consider(PreparedJob job, Reason reason) {
    if (!job.starving || protectedJob != null || !canEnd(job, reason)) {
      return null;
    }
    protectedJob = job;
    List<String> names = new ArrayList<>();
    String note = null;
    List<String> kept = new ArrayList<>();
    if (reason == Reason.WaitingForCapacity) {
      // A gang's replicas need room on as many nodes as their full offers take to hold them all.
      nodes = job.gang() ? placement.gangs().soonest(job) : new int[] {placement.soonest(job)};
      node = nodes[0];
      nodeResources = job.resourceIds;
      for (int id : job.resourceIds) {
        names.add(resources.name(id));
      }
      for (int n : nodes) {
        kept.add(pool.name(n));
      }
      note = CapacityMessages.starvingHoldNote(kept, starvationAfter);
    }
    hold = new StarvationHold(job.key, node < 0 ? null : pool.name(node), names, reason, kept);
    return note;
  }

  /**
   * The Starving condition's sentence for a starving job that waits: what is held back, or why not.
   */
  String note(PreparedJob job, Reason reason) {
    if (job == protectedJob) {
      List<String> parts = new ArrayList<>();
      if (!job.lockKeys.isEmpty()) {
        parts.add(
            (job.lockKeys.size() == 1 ? "its lock " : "its locks ")
                + String.join(", ", job.lockKeys));
      }
      if (job.groupId >= 0) {
        parts.add("the last free slot of group " + job.group());
      }
      if (reservations.hasBudget(job)) {
        parts.add("the namespace budget it needs");
      }
      StringBuilder s = new StringBuilder("lower-priority jobs are held back for it");
      if (!parts.isEmpty()) {
        s.append(": they may not take ").append(joinAnd(parts));
      }
      if (hold.nodes().size() > 1) {
        s.append(parts.isEmpty() ? ": " : ", and ")
            .append("nodes ")
            .append(String.join(", ", hold.nodes()))
            .append(" are kept for its replicas where they fit soonest");
      } else if (hold.node() != null) {
        s.append(parts.isEmpty() ? ": " : ", and ")
            .append("node ")
            .append(hold.node())
            .append(" is kept for it where it fits soonest");
      }
      return s.append('.').toString();
    }
    if (protectedJob != null && (canEnd(job, reason) || reason == Reason.HeldForStarvingJob)) {
      return "lower-priority jobs are held back for starving job "
          + protectedJob.key
          + " first, which comes before it.";
    }
    return "nothing can be held back for it: " + whyNot(job, reason) + ".";
  }

  private boolean canEnd(PreparedJob job, Reason reason) {
    boolean waitEnds =
        switch (reason) {
          case WaitingForLock, WaitingForCapacity -> true;
          case WaitingForGroup -> reservations.groupCap(job) > 0;
          case WaitingForBudget -> reservations.fitsWholeBudget(job);
          default -> false;
        };
    // The gates are checked in order (lock, group, budget, capacity), so a job waiting at one may
    // be one that a later gate will never let through: it would never run, and whatever is kept
    // for it would be kept forever.
    return waitEnds && whyNeverAfter(job, reason) == null;
  }

  /**
   * Why a gate checked after {@code reason} will never let {@code job} through, as a phrase; null
   * when each later gate could.
   */
  private String whyNeverAfter(PreparedJob job, Reason reason) {
    if (reason == Reason.WaitingForLock && job.groupId >= 0 && reservations.groupCap(job) <= 0) {
      return "its group may run no job at all (maxRunning "
          + reservations.groupCap(job)
          + "), whatever it waits for first";
    }
    if ((reason == Reason.WaitingForLock || reason == Reason.WaitingForGroup)
        && !reservations.fitsWholeBudget(job)) {
      return "it needs more than the whole budget of its namespace, whatever it waits for first";
    }
    if (isCheckedBeforeCapacity(reason) && !placement.fitsSomeFullOffer(job)) {
      return "no ready node could hold it in its current mode, whatever it waits for first";
    }
    return null;
  }

  private String whyNot(PreparedJob job, Reason reason) {
    // The gate it waits at first, when that one can never let it through; else a later one.
    boolean ownGateNever =
        (reason == Reason.WaitingForGroup && reservations.groupCap(job) <= 0)
            || (reason == Reason.WaitingForBudget && !reservations.fitsWholeBudget(job));
    String never = ownGateNever ? null : whyNeverAfter(job, reason);
    if (never != null) {
      return never;
    }
    return switch (reason) {
      case WaitingForDependency -> "it waits for a dependency to succeed";
      case NoNodeFits -> "no ready node could hold it in its current mode";
      case WaitingForGroup ->
          "its group may run no job at all (maxRunning " + reservations.groupCap(job) + ")";
      case WaitingForBudget -> "it needs more than the whole budget of its namespace";
      case WaitingForQueueMax ->
          "it waits for its queue's max, which only its queue's own jobs free";
      case QueueConflict, QueueCycle -> "its queue is misconfigured (see its reason)";
      case HeldForQueueMinimum ->
          "it is held for a queue reclaiming its min, which ends when that queue holds its min";
      default -> "it waits for " + reason.code();
    };
  }

  private static boolean isCheckedBeforeCapacity(Reason reason) {
    return reason == Reason.WaitingForLock
        || reason == Reason.WaitingForGroup
        || reason == Reason.WaitingForBudget;
  }

  private static String joinAnd(List<String> parts) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    return String.join(", ", parts.subList(0, parts.size() - 1))
        + " or "
        + parts.get(parts.size() - 1);
  }
}
