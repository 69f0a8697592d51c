package io.octomy.batch.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;

/** The sentences for WaitingForCapacity, NoNodeFits and HeldForStarvingJob, with the numbers. */
final class CapacityMessages {

  private CapacityMessages() {}

  /**
   * E.g. "waiting for capacity: need 3000 octomy.io/cpu-milli; the most free on a ready node is
   * 2000 (ws-3, Background)."
   */
  static String waitingForCapacity(NodePool pool, MostFreeNotes notes, PreparedJob job) {
    StringBuilder s = new StringBuilder("waiting for capacity: ").append(need(pool, job));
    boolean eachFitsSomewhere = true;
    List<String> parts = new ArrayList<>();
    for (int k = 0; k < job.resourceIds.length; k++) {
      int resource = job.resourceIds[k];
      int node = pool.mostFree(job, resource);
      if (node < 0) {
        parts.add(noneOffers(pool, resource));
        eachFitsSomewhere = false;
        continue;
      }
      long free = pool.freeFor(node, job, resource);
      eachFitsSomewhere &= free >= job.quantities[k];
      parts.add(
          amount(pool, job, k, Math.max(0, free)) + " (" + notes.note(node, job, resource) + ")");
    }
    s.append("; the most free on a ready node")
        .append(withLabels(job))
        .append(" is ")
        .append(String.join(" and ", parts));
    if (job.resourceIds.length > 1 && eachFitsSomewhere) {
      s.append(", but no ").append(suchNode(job)).append(" has all of it free at once");
    }
    return s.append('.').toString();
  }

  /** Why no ready node could ever hold the job in its current mode. */
  static String noNodeFits(NodePool pool, PreparedJob job, Duration heartbeatTimeout) {
    if (pool.readyCount() == 0) {
      return "no node fits: no node is ready ("
          + pool.size()
          + " known; a node is ready when its"
          + " agent reports Ready and its last heartbeat is less than "
          + duration(heartbeatTimeout)
          + " old).";
    }
    if (job.placement.conflict() != null) {
      return "no node fits: " + job.placement.conflict() + ".";
    }
    if (job.selectable != null && pool.selectedReadyCount(job) == 0) {
      return "no node fits: no ready node has the labels "
          + selectorWords(job, ", ")
          + " that "
          + job.placement.source()
          + " asks for; label a node with kubectl label bn NODE "
          + selectorWords(job, " ")
          + ", or change the selector.";
    }
    if (!pool.anyEligible(job)) {
      return "no node fits: every ready node" + withLabels(job) + " is in mode Off for this job.";
    }
    StringBuilder s = new StringBuilder("no node fits: ").append(need(pool, job));
    boolean eachFitsSomewhere = true;
    List<String> parts = new ArrayList<>();
    for (int k = 0; k < job.resourceIds.length; k++) {
      int resource = job.resourceIds[k];
      int node = pool.largestOffer(job, resource);
      long offer = node < 0 ? 0 : pool.offerFor(node, job, resource);
      if (offer == 0) {
        parts.add(noneOffers(pool, resource));
        eachFitsSomewhere = false;
        continue;
      }
      eachFitsSomewhere &= offer >= job.quantities[k];
      parts.add(amount(pool, job, k, offer) + " (" + where(pool, job, node) + ")");
    }
    s.append("; the largest offer of a ready node")
        .append(withLabels(job))
        .append(" in its current mode is ")
        .append(String.join(" and ", parts));
    if (job.resourceIds.length > 1 && eachFitsSomewhere) {
      s.append(", but no ").append(suchNode(job)).append(" offers all of it at once");
    }
    return s.append('.').toString();
  }

  /**
   * Why no ready node could ever hold every replica of a gang at once, e.g. "no node fits: a gang
   * of 3 needs 2000 octomy.io/cpu-milli for each replica, all at once; the ready nodes in their
   * current modes offer room for 2 (a: 1, b: 1)." A gang whose single copy fits no node is told so
   * by the single job's sentence.
   */
  static String gangNoNodeFits(
      NodePool pool, GangPlacement gangs, PreparedJob job, Duration heartbeatTimeout) {
    if (gangs.copiesEver(job) == 0) {
      return noNodeFits(pool, job, heartbeatTimeout)
          + " Each of its "
          + job.replicas
          + " replicas needs that much.";
    }
    return "no node fits: "
        + gangNeed(pool, job)
        + "; the ready nodes"
        + withLabels(job)
        + " in their current modes offer room for "
        + gangs.copiesEver(job)
        + " ("
        + perNode(pool, job, node -> gangs.copiesInFullOffer(node, job))
        + "), so it can never start whole; lower spec.replicas or the requests, or add nodes.";
  }

  /**
   * A gang that fits whole in the full offers but not in what is free now, e.g. "waiting for
   * capacity: a gang of 3 needs 2000 octomy.io/cpu-milli for each replica, all at once; the ready
   * nodes have room for 1 now (a: 1); nothing is held for it meanwhile."
   */
  static String gangWaitingForCapacity(NodePool pool, GangPlacement gangs, PreparedJob job) {
    long now = gangs.copiesNow(job);
    return "waiting for capacity: "
        + gangNeed(pool, job)
        + "; the ready nodes"
        + withLabels(job)
        + " have room for "
        + now
        + " now"
        + (now == 0 ? "" : " (" + perNode(pool, job, node -> gangs.copiesNow(node, job)) + ")")
        + ", and no replica holds anything until all "
        + job.replicas
        + " fit.";
  }

  /** "a gang of 3 needs 2000 a and 1 b for each replica, all at once". */
  private static String gangNeed(NodePool pool, PreparedJob job) {
    String need = need(pool, job);
    return "a gang of "
        + job.replicas
        + " "
        + (job.requestsNothing()
            ? "needs a node"
            : "needs " + need.substring("need ".length()).replace(" on one node", ""))
        + " for each replica, all at once";
  }

  /** "a: 2, b: 1" for the nodes with room, the first three by name and how many more. */
  private static String perNode(NodePool pool, PreparedJob job, IntToLongFunction copies) {
    List<String> parts = new ArrayList<>();
    int more = 0;
    for (int node = 0; node < pool.size(); node++) {
      long c = copies.applyAsLong(node);
      if (c <= 0) {
        continue;
      }
      if (parts.size() == 3) {
        more++;
      } else {
        parts.add(pool.name(node) + ": " + c);
      }
    }
    return String.join(", ", parts) + (more > 0 ? " and " + more + " more nodes" : "");
  }

  /**
   * E.g. "deferred: a BestEffort job waits while every ready node it could run on is busy: ws-1
   * measures 15000 octomy.io/cpu-milli in use, at or above its offer of 12000 (Background). ..."
   */
  static String bestEffortDeferred(NodePool pool, PreparedJob job, Duration starvationAfter) {
    List<String> busy = new ArrayList<>();
    int more = 0;
    for (int node = 0; node < pool.size(); node++) {
      int resource = pool.eligible(node, job) ? pool.busyResourceFor(node, job) : -1;
      if (resource < 0) {
        continue;
      }
      if (busy.size() == 3) {
        more++;
        continue;
      }
      busy.add(
          pool.name(node)
              + " measures "
              + pool.usage(node, resource)
              + " "
              + pool.resourceName(resource)
              + " in use, at or above its offer of "
              + pool.offerFor(node, job, resource)
              + " ("
              + pool.modeFor(node, job)
              + ")");
    }
    return "deferred: a BestEffort job waits while every ready node it could run on is busy: "
        + String.join("; ", busy)
        + (more > 0 ? "; and " + more + " more" : "")
        + ". It starts once a node's use drops below its offer, or once it has waited longer"
        + " than "
        + duration(starvationAfter)
        + ".";
  }

  static String heldForStarvingJob(StarvationHold hold) {
    if (hold.nodes().size() > 1) {
      return "held for starving job "
          + hold.starvingJob()
          + ": nodes "
          + String.join(", ", hold.nodes())
          + " are kept for it, and this job fits no other nodes now.";
    }
    return "held for starving job "
        + hold.starvingJob()
        + ": node "
        + hold.node()
        + " is kept for it, and this job fits no other node now.";
  }

  static String starvingHoldNote(List<String> nodes, Duration starvationAfter) {
    return " It has waited longer than "
        + duration(starvationAfter)
        + (nodes.size() == 1
            ? ", so node " + nodes.get(0) + " is held back for it."
            : ", so nodes " + String.join(", ", nodes) + " are held back for it.");
  }

  /**
   * "need 3000 a" or "need 3000 a and 4 b on one node": the job's requests alone, so written once
   * per reading, which later passes share.
   */
  private static String need(NodePool pool, PreparedJob job) {
    String need = job.reading.needWords;
    if (need == null) {
      need = job.reading.needWords = needWords(pool, job);
    }
    return need;
  }

  private static String needWords(NodePool pool, PreparedJob job) {
    List<String> parts = new ArrayList<>();
    for (int k = 0; k < job.resourceIds.length; k++) {
      parts.add(job.quantities[k] + " " + pool.resourceName(job.resourceIds[k]));
    }
    return "need " + String.join(" and ", parts) + (parts.size() > 1 ? " on one node" : "");
  }

  /** " with the labels a=b, c=d (spec.nodeSelector)" for a job with a selector, else nothing. */
  private static String withLabels(PreparedJob job) {
    return job.selectable == null
        ? ""
        : " with the labels " + selectorWords(job, ", ") + " (" + job.placement.source() + ")";
  }

  private static String suchNode(PreparedJob job) {
    return job.selectable == null ? "ready node" : "such node";
  }

  /** The selector's pairs as label=value, by label, joined with {@code separator}. */
  static String selectorWords(PreparedJob job, String separator) {
    List<String> pairs = new ArrayList<>();
    job.placement.selector().forEach((label, value) -> pairs.add(label + "=" + value));
    return String.join(separator, pairs);
  }

  /** A single-resource job's numbers go without the name (the need already says it). */
  private static String amount(NodePool pool, PreparedJob job, int k, long value) {
    return job.resourceIds.length == 1
        ? Long.toString(value)
        : value + " " + pool.resourceName(job.resourceIds[k]);
  }

  private static String where(NodePool pool, PreparedJob job, int node) {
    return pool.name(node) + ", " + pool.modeFor(node, job);
  }

  private static String noneOffers(NodePool pool, int resource) {
    return "nothing of " + pool.resourceName(resource) + " (no ready node offers it)";
  }

  /** Kubernetes style: 90s, 1m30s, 1h. */
  static String duration(Duration d) {
    long seconds = d.getSeconds();
    StringBuilder s = new StringBuilder();
    if (seconds >= 3600) {
      s.append(seconds / 3600).append('h');
      seconds %= 3600;
    }
    if (seconds >= 60) {
      s.append(seconds / 60).append('m');
      seconds %= 60;
    }
    if (seconds > 0 || s.length() == 0) {
      s.append(seconds).append('s');
    }
    return s.toString();
  }
}
