package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Evaluates every gate of one job at its turn in a pass, reading the pass's own state (node pool,
 * reservations, dependency verdicts, starvation hold) and the same checks {@link
 * AdmissionRules#decideOne} makes, so the first gate it reports is the one the pass decides on. It
 * changes nothing: the pass then decides the job as usual.
 *
 * <p>A job that can never run as it stands (an invalid spec, a dependency cycle, a failed ancestor)
 * gets that one gate: nothing else can help it. So does a held job: it is out of the pass until
 * released, and what it will wait for then is decided then. Otherwise every failing gate is listed,
 * with the capacity gate naming up to {@link #CANDIDATES} closest nodes (and the job's origin
 * node).
 */
final class GateInspector {

  /** Candidate nodes named by a capacity gate, besides the origin. */
  static final int CANDIDATES = 3;

  private final PassState pass;
  private final NodePool pool;
  private final Reservations reservations;

  GateInspector(PassState pass) {
    this.pass = pass;
    this.pool = pass.pool();
    this.reservations = pass.reservations();
  }

  /** Reports the gates of the listed jobs into {@code reports}, each at its turn in the pass. */
  static BiConsumer<PreparedJob, DependencyVerdict> listener(
      PassState pass, Set<JobKey> jobs, Map<JobKey, GateReport> reports) {
    GateInspector inspector = new GateInspector(pass);
    int[] position = {0};
    return (job, verdict) -> {
      position[0]++;
      if (jobs.contains(job.key)) {
        reports.put(job.key, inspector.report(job, verdict, position[0]));
      }
    };
  }

  GateReport report(PreparedJob job, DependencyVerdict verdict, int position) {
    List<Gate> failing = new ArrayList<>();
    if (!job.problems.isEmpty()) {
      failing.add(new Gate.InvalidSpec(job.problems));
    } else if (verdict.kind() == DependencyVerdict.Kind.CYCLE) {
      failing.add(new Gate.DependencyCycle(verdict.message()));
    } else if (job.reading.held) {
      failing.add(new Gate.Held(DecisionWords.heldMessage(job.key)));
    } else if (job.reading.notBefore != null
        && pass.snapshot().now().isBefore(job.reading.notBefore)) {
      failing.add(
          new Gate.BackingOff(
              job.reading.notBefore, DecisionWords.backingOffMessage(job.reading.notBefore)));
    } else if (verdict.kind() == DependencyVerdict.Kind.SKIP) {
      failing.add(new Gate.DependencyFailed(verdict.ancestor(), verdict.message()));
    } else {
      if (verdict.kind() == DependencyVerdict.Kind.WAIT) {
        failing.add(dependencies(job, verdict));
      }
      failing.addAll(locks(job));
      Gate group = group(job);
      if (group != null) {
        failing.add(group);
      }
      failing.addAll(reservations.budgetGates(job));
      Gate queue = queue(job);
      if (queue != null) {
        failing.add(queue);
      }
      String contested = pass.guard().contested(job);
      if (contested != null) {
        failing.add(new Gate.Contested(pass.guard().protectedJob().key, contested));
      }
      Gate capacity = capacity(job);
      if (capacity != null) {
        failing.add(capacity);
      }
    }
    return new GateReport(
        job.key, position, job.effectivePriority, job.starving, failing, fairShareTerm(job));
  }

  /** The numbers behind the job's fair-share term; null without queues or without a queue. */
  private FairShareTerm fairShareTerm(PreparedJob job) {
    FairShare share = pass.fairShare();
    if (share == null || job.queue < 0) {
      return null;
    }
    QueueTree tree = pass.queueTree();
    return new FairShareTerm(
        tree.name(job.queue),
        tree.weight(job.queue),
        share.dominant(job.queue),
        share.deserved(job.queue),
        job.fairShare,
        pass.snapshot().policy().priority().fairShareWeight());
  }

  /** The first queue gate the job fails, as the pass checks them; null when none. */
  private Gate queue(PreparedJob job) {
    QueueTree tree = pass.queueTree();
    if (job.queue == QueueTree.CONFLICT) {
      return new Gate.Queue(Reason.QueueConflict, tree.conflictWords(job.key.namespace()));
    }
    if (tree.cycle(job.queue) != null) {
      return new Gate.Queue(Reason.QueueCycle, tree.cycleWords(job.queue));
    }
    QueueLedger ledger = pass.queueLedger();
    if (ledger != null && !ledger.fitsMax(job)) {
      return new Gate.Queue(
          Reason.WaitingForQueueMax,
          "waiting for queue max: " + String.join("; ", ledger.maxShortfalls(job)) + ".");
    }
    return null;
  }

  private Gate dependencies(PreparedJob job, DependencyVerdict verdict) {
    List<Gate.PendingDependency> pending = new ArrayList<>();
    for (WaitingOn on : verdict.waitingOn()) {
      PreparedJob dep = pass.job(new JobKey(job.key.namespace(), on.job()));
      pending.add(new Gate.PendingDependency(on.job(), dep == null ? null : dep.view.phase()));
    }
    return new Gate.Dependencies(pending);
  }

  private List<Gate> locks(PreparedJob job) {
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    for (WaitingOn w : reservations.blockingLocks(job)) {
      byKey.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w.job());
    }
    List<Gate> gates = new ArrayList<>();
    byKey.forEach((key, holders) -> gates.add(new Gate.Lock(key, holders)));
    return gates;
  }

  private Gate group(PreparedJob job) {
    List<String> holders = reservations.fullGroupHolders(job);
    int cap = job.groupId < 0 ? 0 : reservations.groupCap(job);
    if (!holders.isEmpty() || (job.groupId >= 0 && cap <= 0)) {
      return new Gate.Group(job.group(), cap, holders);
    }
    return null;
  }

  /** Null when the job can be placed now. */
  private Gate capacity(PreparedJob job) {
    int excluded = pass.guard().excludedNodeFor(job);
    QueueMinimumHolds holds = pass.minimumHolds();
    List<QueueMinimumHolds.MinimumHold> minimums = holds == null ? List.of() : holds.against(job);
    if (job.gang()
        ? pass.keptNodes().placeGang(job, minimums) != null
        : pass.keptNodes().placeBeside(job, excluded, minimums) >= 0) {
      return null;
    }
    // For a gang: whether every replica fits the full offers together; the nodes are about one.
    boolean everHolds = pass.placement().fitsSomeFullOffer(job);
    if (job.gang() && everHolds && !(job.deferrable && job.requestsNothing())) {
      Gate held = gangHeld(job, minimums);
      if (held != null) {
        return held;
      }
    }
    boolean copyEverHolds = job.gang() ? pass.gangs().copiesEver(job) > 0 : everHolds;
    if (everHolds && job.deferrable && job.requestsNothing()) {
      return deferred(job);
    }
    if (everHolds && excluded >= 0 && !job.gang()) {
      // A starving gang keeps several nodes; the first where this job fits is named.
      for (int kept : pass.guard().excludedNodesFor(job)) {
        if (pool.fitsNow(kept, job)) {
          return new Gate.HeldNode(pass.guard().protectedJob().key, pool.name(kept));
        }
      }
    }
    for (QueueMinimumHolds.MinimumHold hold : minimums) {
      if (everHolds && !job.gang() && pool.fitsNow(hold.node, job)) {
        return new Gate.QueueMinimum(
            holds.queueName(hold), hold.head.key, pool.name(hold.node), holds.words(hold));
      }
    }
    int eligible = 0;
    for (int node = 0; node < pool.size(); node++) {
      if (pool.eligible(node, job)) {
        eligible++;
      }
    }
    return new Gate.Capacity(
        everHolds,
        pool.readyCount(),
        pool.selectedReadyCount(job),
        eligible,
        candidates(job, copyEverHolds),
        job.gang()
            ? new Gate.GangRoom(
                job.replicas, pass.gangs().copiesNow(job), pass.gangs().copiesEver(job))
            : null,
        job.placement.selector(),
        job.placement.source(),
        job.placement.conflict());
  }

  /**
   * As the pass decides a gang that fits whole only with the nodes kept for others: held for the
   * starving job when its nodes stop it, else for the queue reclaiming its min; null otherwise.
   */
  private Gate gangHeld(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    GangPlacement gangs = pass.gangs();
    if (pass.keptNodes().gangAvoids(job, minimums).length == 0
        || gangs.place(job, new int[0]) == null) {
      return null;
    }
    int[] starving = pass.guard().excludedNodesFor(job);
    if (starving.length > 0
        && (minimums.isEmpty() || gangs.place(job, KeptNodes.minimumNodes(minimums)) != null)) {
      return new Gate.HeldNode(pass.guard().protectedJob().key, pool.name(starving[0]));
    }
    QueueMinimumHolds holds = pass.minimumHolds();
    QueueMinimumHolds.MinimumHold hold = minimums.get(0);
    return new Gate.QueueMinimum(
        holds.queueName(hold), hold.head.key, pool.name(hold.node), holds.words(hold));
  }

  private Gate deferred(PreparedJob job) {
    List<Gate.BusyNode> busy = new ArrayList<>();
    int more = 0;
    for (int node = 0; node < pool.size(); node++) {
      int resource = pool.eligible(node, job) ? pool.busyResourceFor(node, job) : -1;
      if (resource < 0) {
        continue;
      }
      if (busy.size() == CANDIDATES) {
        more++;
        continue;
      }
      busy.add(
          new Gate.BusyNode(
              pool.name(node),
              pool.modeFor(node, job),
              pool.resourceName(resource),
              pool.usage(node, resource),
              pool.offerFor(node, job, resource)));
    }
    return new Gate.Deferred(busy, more, pass.snapshot().policy().priority().starvationAfter());
  }

  /**
   * The closest eligible nodes, closest first, and the origin node. For a job some full offer
   * holds: among those nodes, the smallest largest shortfall as a share of the offer (where it fits
   * soonest). Otherwise: the fewest resources the offer cannot hold, then the smallest largest
   * excess as a share of the request.
   */
  private List<Gate.NodeRoom> candidates(PreparedJob job, boolean everHolds) {
    List<int[]> ranked = new ArrayList<>(); // {node}
    List<long[]> keys = new ArrayList<>(); // {count, numerator, denominator}
    for (int node = 0; node < pool.size(); node++) {
      if (!pool.eligible(node, job) || (everHolds && !pool.fitsFullOffer(node, job))) {
        continue;
      }
      long[] key = everHolds ? shortfallKey(node, job) : excessKey(node, job);
      int at = ranked.size();
      while (at > 0 && compare(key, keys.get(at - 1)) < 0) {
        at--;
      }
      if (at < CANDIDATES) {
        ranked.add(at, new int[] {node});
        keys.add(at, key);
        if (ranked.size() > CANDIDATES) {
          ranked.remove(CANDIDATES);
          keys.remove(CANDIDATES);
        }
      }
    }
    List<Gate.NodeRoom> rooms = new ArrayList<>();
    boolean originListed = false;
    for (int[] n : ranked) {
      rooms.add(room(n[0], job));
      originListed |= n[0] == job.origin;
    }
    if (!originListed && job.origin >= 0 && pool.eligible(job.origin, job)) {
      rooms.add(room(job.origin, job));
    }
    return rooms;
  }

  private long[] shortfallKey(int node, PreparedJob job) {
    long worstShort = 0;
    long worstOffer = 1;
    for (int k = 0; k < job.resourceIds.length; k++) {
      int res = job.resourceIds[k];
      long offer = pool.offerFor(node, job, res);
      long shortfall = Math.max(0, job.quantities[k] - pool.freeFor(node, job, res));
      if (shortfall > 0
          && QuantityMath.compareFractions(shortfall, offer, worstShort, worstOffer) > 0) {
        worstShort = shortfall;
        worstOffer = offer;
      }
    }
    return new long[] {0, worstShort, worstOffer};
  }

  private long[] excessKey(int node, PreparedJob job) {
    long over = 0;
    long worstExcess = 0;
    long worstRequest = 1;
    for (int k = 0; k < job.resourceIds.length; k++) {
      long excess = job.quantities[k] - pool.offerFor(node, job, job.resourceIds[k]);
      if (excess > 0) {
        over++;
        if (QuantityMath.compareFractions(excess, job.quantities[k], worstExcess, worstRequest)
            > 0) {
          worstExcess = excess;
          worstRequest = job.quantities[k];
        }
      }
    }
    return new long[] {over, worstExcess, worstRequest};
  }

  private static int compare(long[] a, long[] b) {
    int c = Long.compare(a[0], b[0]);
    return c != 0 ? c : QuantityMath.compareFractions(a[1], a[2], b[1], b[2]);
  }

  private Gate.NodeRoom room(int node, PreparedJob job) {
    List<Gate.Room> rooms = new ArrayList<>();
    for (int k = 0; k < job.resourceIds.length; k++) {
      int res = job.resourceIds[k];
      rooms.add(
          new Gate.Room(
              pool.resourceName(res),
              job.quantities[k],
              pool.offerFor(node, job, res),
              pool.allocated(node, res)));
    }
    return new Gate.NodeRoom(pool.name(node), pool.modeFor(node, job), node == job.origin, rooms);
  }
}
