package io.octomy.batch.visibility;

import io.octomy.batch.admission.Gate;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.vocabulary.NodeMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The capacity blockers of {@link Remedies}: per candidate node what is free and what is short,
 * with the request that would fit now, the running job whose end makes room (when, how sure), or
 * for a job no node could ever hold, the request or the mode that would.
 */
final class CapacityRemedies {

  private final Holdings holdings;
  private final StartBasis basis;
  private final ModeSuggestions offers;
  private final Instant now;

  CapacityRemedies(Holdings holdings, StartBasis basis, ModeSuggestions offers, Instant now) {
    this.holdings = holdings;
    this.basis = basis;
    this.offers = offers;
    this.now = now;
  }

  /**
   * A gang: the replicas the nodes hold now (waiting) or ever (no node fits), before what each
   * candidate node has for one replica; null for a job of one replica or a gang of which no single
   * replica fits any node (told as a single job is).
   */
  private static Blocker gang(JobView job, Gate.Capacity g, Blocker perNode) {
    Gate.GangRoom gang = g.gang();
    if (gang == null || (!g.everHolds() && gang.roomEver() == 0)) {
      return perNode;
    }
    String need =
        "a gang of "
            + gang.replicas()
            + " needs "
            + (job.requests().values().stream().anyMatch(q -> q > 0)
                ? requests(job).replace(" on one node", "")
                : "a node")
            + " for each replica, all at once";
    if (!g.everHolds()) {
      return new Blocker(
          g.reason().code(),
          "no node fits: "
              + need
              + "; the ready nodes' full offers hold "
              + gang.roomEver()
              + " of them together, so it can never start whole.",
          "Lower spec.replicas to "
              + gang.roomEver()
              + " or the requests (delete and re-create the job), add nodes, or raise a node's"
              + " mode.");
    }
    return new Blocker(
        g.reason().code(),
        "waiting for capacity: "
            + need
            + "; the nodes have room for "
            + gang.roomNow()
            + " now, and no replica holds anything until all "
            + gang.replicas()
            + " fit. For one replica: "
            + perNode.message().substring("waiting for capacity: ".length()),
        "It starts when running jobs have made room for every replica at once; see its expected"
            + " start.");
  }

  /** Waiting for capacity: what each candidate node has free and is short of, and what helps. */
  Blocker waiting(JobView job, Gate.Capacity g) {
    return gang(job, g, waitingForOne(job, g));
  }

  /** No node could ever hold it: for a gang, every replica together; else as {@link #one}. */
  Blocker noNodeFits(JobView job, Gate.Capacity g) {
    return g.gang() != null && g.gang().roomEver() > 0 ? gang(job, g, null) : one(job, g);
  }

  private Blocker waitingForOne(JobView job, Gate.Capacity g) {
    List<String> nodes = new ArrayList<>();
    for (Gate.NodeRoom room : g.nodes()) {
      List<String> free = new ArrayList<>();
      List<String> shortOf = new ArrayList<>();
      for (Gate.Room r : room.resources()) {
        free.add(r.free() + " of " + r.offer() + " " + r.resource());
        if (r.shortfall() > 0) {
          shortOf.add(r.shortfall() + " " + r.resource());
        }
      }
      nodes.add(
          room.node()
              + " ("
              + room.mode()
              + (room.origin() ? ", its own node" : "")
              + ") has "
              + Wording.and(free)
              + " free"
              + (shortOf.isEmpty() ? "" : ", " + Wording.and(shortOf) + " short"));
    }
    String message =
        "waiting for capacity: need " + requests(job) + "; " + String.join("; ", nodes) + ".";
    List<String> remedies = new ArrayList<>();
    for (Gate.NodeRoom room : g.nodes()) {
      List<String> atMost = new ArrayList<>();
      boolean possible = true;
      for (Gate.Room r : room.resources()) {
        if (r.shortfall() > 0) {
          atMost.add(r.free() + " " + r.resource());
          possible &= r.free() > 0;
        }
      }
      StringBuilder s = new StringBuilder();
      if (possible && !atMost.isEmpty()) {
        s.append("It fits on ")
            .append(room.node())
            .append(" now if the request is at most ")
            .append(Wording.and(atMost))
            .append("; ");
      }
      Optional<Holdings.Holding> enough = holdings.firstToMakeRoom(room);
      if (enough.isPresent()) {
        Holdings.Holding h = enough.get();
        s.append(s.length() == 0 ? "E" : "e")
            .append("nough frees on ")
            .append(room.node())
            .append(" when ")
            .append(h.job().name())
            .append(" ends, expected ")
            .append(Wording.at(h.end(), now))
            .append(" (")
            .append(basis.ofEnd(h.job()))
            .append(").");
      } else if (s.length() > 0) {
        s.setLength(s.length() - 2);
        s.append('.');
      }
      if (s.length() > 0) {
        remedies.add(s.toString());
      }
    }
    if (remedies.isEmpty()) {
      remedies.add("It starts when running jobs make room; see its expected start.");
    }
    return new Blocker(g.reason().code(), message, String.join(" ", remedies));
  }

  /** No node could ever hold one copy: where the request is over the offer, and what would do. */
  private Blocker one(JobView job, Gate.Capacity g) {
    String reason = g.reason().code();
    if (g.readyNodes() == 0) {
      return new Blocker(
          reason,
          "no node is ready: none has an agent reporting it Ready.",
          "Each node's Ready condition says why (kubectl describe bn): start an agent where none"
              + " reports, or do what the condition's message says, such as matching"
              + " spec.executor to the agent's.");
    }
    if (g.labelConflict() != null) {
      return new Blocker(
          reason,
          g.labelConflict() + ".",
          "Until they agree no node can run it; kubectl get bq -o yaml shows each queue's"
              + " nodeSelector.");
    }
    if (g.selectedNodes() == 0) {
      String labels = labels(g, ", ");
      return new Blocker(
          reason,
          "no ready node has the labels " + labels + " that " + g.labelsAskedBy() + " asks for.",
          "Label a node that may run it with kubectl label bn NODE "
              + labels(g, " ")
              + ", or change "
              + (g.labelsAskedBy().startsWith("spec.nodeSelector")
                  ? "spec.nodeSelector"
                  : "the selector")
              + "; kubectl get bn --show-labels lists the nodes' labels.");
    }
    if (g.eligibleNodes() == 0) {
      return new Blocker(
          reason,
          "every ready node"
              + (g.labels().isEmpty()
                  ? ""
                  : " with the labels " + labels(g, ", ") + " (" + g.labelsAskedBy() + ")")
              + " is in mode Off for this job.",
          "Set a node's mode (its ownMode, for its own work) to Interactive, Background or Drone.");
    }
    List<String> nodes = new ArrayList<>();
    List<String> remedies = new ArrayList<>();
    for (Gate.NodeRoom room : g.nodes()) {
      List<String> over = new ArrayList<>();
      List<String> atMost = new ArrayList<>();
      List<String> absent = new ArrayList<>();
      for (Gate.Room r : room.resources()) {
        if (r.request() > r.offer()) {
          over.add(
              "offers " + r.offer() + " of the " + r.request() + " " + r.resource() + " asked");
          if (offers.hasCapacity(room.node(), r.resource())) {
            atMost.add(r.offer() + " " + r.resource());
          } else {
            absent.add(r.resource());
          }
        }
      }
      nodes.add(room.node() + " (" + room.mode() + ") " + Wording.and(over));
      Optional<NodeMode> mode = offers.modeThatHolds(room.node(), job, room.origin());
      if (!atMost.isEmpty() || mode.isPresent()) {
        StringBuilder s = new StringBuilder("It fits the offer of ").append(room.node());
        if (!atMost.isEmpty()) {
          s.append(" if the request is at most ").append(Wording.and(atMost));
        }
        mode.ifPresent(
            m ->
                s.append(atMost.isEmpty() ? " if " : ", or if ")
                    .append(room.node())
                    .append(room.origin() ? "'s ownMode" : "'s mode")
                    .append(" becomes ")
                    .append(m));
        remedies.add(s.append('.').toString());
      }
      if (!absent.isEmpty()) {
        // An offer of 0 that no mode changes: the node has none of it, so say how to give it some.
        String first = absent.get(0);
        remedies.add(
            room.node()
                + " has no "
                + Wording.and(absent)
                + " at all: give it some with its agent's --capacity "
                + first
                + "=N or its BatchNode's spec.resources (kubectl patch bn "
                + room.node()
                + " --type=merge -p '{\"spec\":{\"resources\":{\""
                + first
                + "\":N}}}'), or leave "
                + (absent.size() > 1 ? "them" : "it")
                + " out of the request.");
      }
    }
    return new Blocker(
        reason,
        "no ready node can hold it in its current mode: need "
            + requests(job)
            + "; "
            + String.join("; ", nodes)
            + ".",
        String.join(" ", remedies));
  }

  /** The labels asked for as label=value pairs by label, joined with {@code separator}. */
  private static String labels(Gate.Capacity g, String separator) {
    List<String> pairs = new ArrayList<>();
    g.labels().forEach((k, v) -> pairs.add(k + "=" + v));
    return String.join(separator, pairs);
  }

  private static String requests(JobView job) {
    List<String> parts = new ArrayList<>();
    job.requests().entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> parts.add(e.getValue() + " " + e.getKey()));
    return Wording.and(parts) + (parts.size() > 1 ? " on one node" : "");
  }
}
