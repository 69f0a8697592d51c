package io.octomy.batch.visibility;

import io.octomy.batch.admission.Forecast;
import io.octomy.batch.admission.Gate;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.Reason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Turns each gate a job fails into a blocker: what stands in the way, with the numbers, and a
 * remedy in a sentence: what to change (with the number that would do), or when it is expected to
 * clear by itself (which job's end, when, and how sure).
 */
final class Remedies {

  private final Forecast forecast;
  private final Holdings holdings;
  private final StartBasis basis;
  private final CapacityRemedies capacity;
  private final Instant now;

  Remedies(
      Forecast forecast, Holdings holdings, StartBasis basis, ModeSuggestions offers, Instant now) {
    this.forecast = forecast;
    this.holdings = holdings;
    this.basis = basis;
    this.capacity = new CapacityRemedies(holdings, basis, offers, now);
    this.now = now;
  }

  List<Blocker> blockers(JobView job, List<Gate> gates) {
    List<Blocker> out = new ArrayList<>();
    for (Gate gate : gates) {
      out.add(blocker(job, gate));
    }
    return out;
  }

  Blocker blocker(JobView job, Gate gate) {
    String reason = gate.reason().code();
    if (gate instanceof Gate.InvalidSpec g) {
      return new Blocker(
          reason,
          "the spec is invalid: " + String.join(" ", g.problems()),
          "Fix the manifest as the sentences say and apply it again; a job whose spec becomes"
              + " valid is queued again.");
    }
    if (gate instanceof Gate.Held g) {
      return new Blocker(
          reason,
          g.message(),
          "Release it with kubectl patch bj "
              + job.name()
              + " -n "
              + job.namespace()
              + " --type=merge -p '{\"spec\":{\"suspend\":false}}'; it is then decided at its place"
              + " by the time it was queued.");
    }
    if (gate instanceof Gate.BackingOff g) {
      return new Blocker(
          reason,
          g.message(),
          "Wait: it is decided again at its place by the time it was queued once the back-off"
              + " ends; kubectl describe bj "
              + job.name()
              + " shows its earlier runs (status.runs) and kubectl octomy logs "
              + job.name()
              + " --run N their output.");
    }
    if (gate instanceof Gate.DependencyCycle g) {
      return new Blocker(
          reason,
          g.message(),
          "Remove one of the after entries named; a job in a cycle never runs.");
    }
    if (gate instanceof Gate.DependencyFailed g) {
      return new Blocker(
          reason,
          g.message(),
          "It will never run as it stands: once the cause is fixed, create "
              + g.ancestor()
              + " again and then this job.");
    }
    if (gate instanceof Gate.Dependencies g) {
      return dependencies(job, g);
    }
    if (gate instanceof Gate.Lock g) {
      return new Blocker(
          reason,
          "lock " + g.key() + " is held by " + Wording.and(g.holders()) + ".",
          freesWhenAllEnd("It frees", job.namespace(), g.holders()));
    }
    if (gate instanceof Gate.Group g) {
      return group(job, g);
    }
    if (gate instanceof Gate.Budget g) {
      return budget(g);
    }
    if (gate instanceof Gate.Queue g) {
      return new Blocker(reason, g.message(), queueRemedy(g.reason()));
    }
    if (gate instanceof Gate.Contested g) {
      return new Blocker(
          reason,
          "held for starving job "
              + g.starvingJob().name()
              + ": it needs "
              + g.what()
              + " too, and comes first.",
          startOf(g.starvingJob()) + " This job can follow it.");
    }
    if (gate instanceof Gate.HeldNode g) {
      return new Blocker(
          reason,
          "node "
              + g.node()
              + " is kept for starving job "
              + g.starvingJob().name()
              + ", and no other node has room for this job now.",
          startOf(g.starvingJob()) + " The hold ends then.");
    }
    if (gate instanceof Gate.QueueMinimum g) {
      return new Blocker(
          reason,
          g.message(),
          startOf(g.forJob())
              + " The hold ends once queue "
              + g.queue()
              + " holds its min or has no waiting job that fits; a cluster administrator may"
              + " lower its spec.min (kubectl edit bq "
              + g.queue()
              + ").");
    }
    if (gate instanceof Gate.Deferred g) {
      return deferred(job, g);
    }
    Gate.Capacity g = (Gate.Capacity) gate;
    return g.everHolds() ? capacity.waiting(job, g) : capacity.noNodeFits(job, g);
  }

  private Blocker deferred(JobView job, Gate.Deferred g) {
    List<String> busy = new ArrayList<>();
    for (Gate.BusyNode b : g.busy()) {
      busy.add(
          b.node()
              + " ("
              + b.mode()
              + ") measures "
              + b.inUse()
              + " "
              + b.resource()
              + " in use, at or above its offer of "
              + b.offer());
    }
    String more = g.moreBusy() > 0 ? "; and " + g.moreBusy() + " more" : "";
    return new Blocker(
        g.reason().code(),
        "deferred: a BestEffort job waits while every ready node it could run on is busy: "
            + String.join("; ", busy)
            + more
            + ".",
        "It starts once a node's measured use drops below its offer, or once it has waited longer"
            + " than "
            + Wording.duration(g.starvationAfter())
            + "; it is "
            + expectedStart(job.key())
            + ".");
  }

  private Blocker dependencies(JobView job, Gate.Dependencies g) {
    List<String> parts = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    List<String> pending = new ArrayList<>();
    for (Gate.PendingDependency d : g.pending()) {
      if (d.phase() == null) {
        parts.add(d.name() + " (does not exist in namespace " + job.namespace() + ")");
        missing.add(d.name());
      } else {
        parts.add(d.name() + " (" + d.phase() + ")");
        pending.add(d.name());
      }
    }
    String remedy;
    if (!missing.isEmpty()) {
      remedy =
          "Create "
              + Wording.and(missing)
              + " in namespace "
              + job.namespace()
              + ", or remove "
              + (missing.size() == 1 ? "it" : "them")
              + " from after.";
    } else {
      remedy = freesWhenAllEnd("It is free of its dependencies", job.namespace(), pending);
    }
    return new Blocker(
        g.reason().code(), "waits for " + Wording.and(parts) + " to succeed first.", remedy);
  }

  private Blocker group(JobView job, Gate.Group g) {
    String reason = g.reason().code();
    if (g.maxRunning() <= 0) {
      return new Blocker(
          reason,
          "group " + g.group() + " has maxRunning " + g.maxRunning() + ": no job of it may run.",
          "Raise groups." + g.group() + ".maxRunning in the policy above 0.");
    }
    String message =
        "group "
            + g.group()
            + " is full in namespace "
            + job.namespace()
            + ": at most "
            + g.maxRunning()
            + " of it may be admitted or running at once, and "
            + Wording.and(g.holders())
            + (g.holders().size() == 1 ? " is." : " are.");
    Optional<Holdings.Holding> first =
        g.holders().stream()
            .map(h -> holdings.holding(new JobKey(job.namespace(), h)))
            .flatMap(Optional::stream)
            .filter(h -> h.end() != null)
            .min(Comparator.comparing(Holdings.Holding::end));
    String frees =
        first
            .map(
                h ->
                    "A slot frees when "
                        + h.job().name()
                        + " ends, expected "
                        + Wording.at(h.end(), now)
                        + " ("
                        + basis.ofEnd(h.job())
                        + "); or raise")
            .orElse("Raise");
    return new Blocker(
        reason,
        message,
        frees
            + " groups."
            + g.group()
            + ".maxRunning to "
            + (g.maxRunning() + 1)
            + " in the policy.");
  }

  private static String queueRemedy(Reason reason) {
    return switch (reason) {
      case QueueConflict ->
          "A cluster administrator removes the namespace from all but one BatchQueue (kubectl"
              + " edit bq NAME: spec.namespaces or spec.namespaceSelector).";
      case QueueCycle ->
          "A cluster administrator sets spec.parent of one queue in the cycle to a queue outside"
              + " it, or removes it (kubectl edit bq NAME).";
      default ->
          "It frees as running jobs of the queue end; or a cluster administrator raises the"
              + " queue's spec.max (kubectl edit bq NAME).";
    };
  }

  private Blocker budget(Gate.Budget g) {
    String message =
        "budget of namespace "
            + g.namespace()
            + " for "
            + g.resource()
            + ": need "
            + g.request()
            + ", "
            + g.inUse()
            + " already admitted or running, budget is "
            + g.limit()
            + ".";
    String raise =
        "raise budgets." + g.namespace() + "." + g.resource() + " in the policy to at least ";
    if (g.request() > g.limit()) {
      return new Blocker(
          g.reason().code(),
          message,
          "The request is more than the whole budget: lower it to at most "
              + g.limit()
              + " "
              + g.resource()
              + ", or "
              + raise
              + g.request()
              + ".");
    }
    long left = Math.max(0, g.limit() - g.inUse());
    StringBuilder remedy = new StringBuilder();
    if (left > 0) {
      remedy
          .append("It fits the budget now if the request is at most ")
          .append(left)
          .append(' ')
          .append(g.resource())
          .append("; ");
    }
    long needFreed = g.inUse() + g.request() - g.limit();
    Optional<Holdings.Holding> enough =
        holdings.firstToFree(g.namespace(), g.resource(), needFreed);
    enough.ifPresent(
        h ->
            remedy
                .append(remedy.length() == 0 ? "E" : "e")
                .append("nough frees when ")
                .append(h.job().name())
                .append(" ends, expected ")
                .append(Wording.at(h.end(), now))
                .append(" (")
                .append(basis.ofEnd(h.job()))
                .append("); "));
    remedy
        .append(remedy.length() == 0 ? "R" : "or r")
        .append(raise.substring(1))
        .append(g.inUse() + g.request())
        .append('.');
    return new Blocker(g.reason().code(), message, remedy.toString());
  }

  /** "It frees when X ends, expected T (basis)." for the last of several jobs to end. */
  private String freesWhenAllEnd(String what, String namespace, List<String> names) {
    Holdings.Holding last = null;
    List<String> unknown = new ArrayList<>();
    for (String name : names) {
      JobKey key = new JobKey(namespace, name);
      Instant end = forecast.end(key).orElse(null);
      if (end == null) {
        unknown.add(name);
      } else if (last == null || end.isAfter(last.end())) {
        last = new Holdings.Holding(holdings.view(key).orElseThrow(), end);
      }
    }
    if (!unknown.isEmpty()) {
      return Wording.and(unknown)
          + (unknown.size() == 1 ? " is" : " are")
          + " not expected to end while nothing else changes (see kubectl octomy why "
          + unknown.get(0)
          + ").";
    }
    if (last == null) {
      return what + " at the next pass.";
    }
    return what
        + " when "
        + (names.size() > 1 ? "the last of them, " + last.job().name() + "," : last.job().name())
        + " ends, expected "
        + Wording.at(last.end(), now)
        + " ("
        + basis.ofEnd(last.job())
        + ").";
  }

  private String startOf(JobKey job) {
    return job.name() + " is " + expectedStart(job) + ".";
  }

  private String expectedStart(JobKey job) {
    return forecast
        .start(job)
        .map(s -> "expected to start " + Wording.at(s.at(), now))
        .orElse("not expected to start while nothing else changes");
  }
}
