package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Quantities;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a job goes in one pass, over the {@link NodePool}: the best fit now, whether any node could
 * ever hold it, and the node where it would fit soonest (kept for a starving job). The memos here
 * rest on allocation only growing within a pass; {@link #startPass} forgets them.
 */
final class Placement {

  private final NodePool pool;
  private final FreeSpaceIndex free;

  /**
   * Request shapes that found no node in a walk that skipped no node, each with the pool's count of
   * releases then ({@link NodePool#releases}). Allocation only grows during a pass and skipping
   * nodes only removes candidates, so such a shape fits nowhere for the rest of the pass: later
   * jobs asking for the same amounts are answered without a walk. In the passes a forecast
   * simulates, room only appears on a released node, so the shape still fits nowhere when none of
   * the nodes released since has room for it; that is checked instead of a walk while they are few.
   */
  private final Map<RequestShape, Integer> unplaceable = new HashMap<>();

  /** Past this many releases since a shape found no node, a walk is cheaper than the check. */
  private static final int RELEASES_CHECKED_AT_MOST = 128;

  /**
   * The shapes found to fit nowhere in this pass, with the rule that a shape asking for at least as
   * much of every resource fits nowhere either; forgotten at each pass, as releases between passes
   * may make room for a larger shape before a smaller one.
   */
  private final UnplaceableShapes unplaceableThisPass = new UnplaceableShapes();

  /**
   * The same, for walks that skipped only {@link #memoExcluded} (the node held for a starving job).
   */
  private final UnplaceableShapes unplaceableWithout = new UnplaceableShapes();

  private int memoExcluded = -1;

  /** {@link NodePool#releases} when this pass started. */
  private int releasesAtPassStart;

  /** Past this many releases in a pass, they are not looked through before asking the tree. */
  private static final int RELEASED_THIS_PASS_CHECKED_AT_MOST = 32;

  /**
   * Nodes the best-fit walk looks at before it asks the free-space tree whether any node fits: a
   * job that fits usually fits one of the first few, and one that fits nowhere is answered by the
   * tree without walking every node that has enough of one resource.
   */
  private static final int WALK_BEFORE_ASKING = 16;

  /**
   * Memo of {@link #fitsSomeFullOffer} for jobs without an origin; offers do not change in a pass.
   */
  private final Map<RequestShape, Boolean> fullOfferFits = new HashMap<>();

  /** The memo of {@link #soonest}: for which job, its answer, and as of which pool version. */
  private int soonestFor = -1;

  private int soonestNode = -1;
  private long soonestAt = -1;

  /** Where a gang's replicas go: all at once, by the rule of this class, or none. */
  private final GangPlacement gangs;

  Placement(NodePool pool) {
    this.pool = pool;
    this.free = pool.freeSpace();
    this.gangs = new GangPlacement(pool, this);
  }

  GangPlacement gangs() {
    return gangs;
  }

  /**
   * Where the job goes now, or -1. Its origin node first when it fits there (with ownMode's offer);
   * otherwise the best fit: the eligible node with the least free amount of the job's dominant
   * resource that still holds every request, ties to the first name. A job that requests nothing
   * goes to the eligible node with the fewest admitted or running jobs, ties to the first name.
   * {@code excluded} (a node held for a starving job) is never chosen; neither is a busy node for a
   * deferrable BestEffort job.
   */
  int place(PreparedJob job, int excluded) {
    if (job.takeKnownUnplaceable()) {
      return -1; // shown by the forecast for this one placement
    }
    int origin = job.origin;
    if (origin >= 0
        && origin != excluded
        && pool.fitsNow(origin, job)
        && !(job.deferrable && pool.busyResourceFor(origin, job) >= 0)) {
      return origin;
    }
    if (job.requestsNothing()) {
      for (int p = 0; p < free.size(); p++) {
        int node = free.byLoad(p);
        if (node != origin
            && node != excluded
            && job.mayUse(node)
            && !(job.deferrable && pool.busyResourceFor(node, job) >= 0)) {
          return node;
        }
      }
      return -1;
    }
    if (job.selectable != null) {
      return bestSelected(job, excluded);
    }
    if (excluded != memoExcluded) {
      unplaceableWithout.clear();
      memoExcluded = excluded;
    }
    if (unplaceableThisPass.fitsNowhere(job.shape)
        || stillUnplaceable(job)
        || (excluded >= 0 && unplaceableWithout.fitsNowhere(job.shape))) {
      return -1;
    }
    // The best fit: walk the dominant resource upwards from the request to the first node that
    // holds every request. A long walk is cut short by asking the free-space tree whether any
    // node fits at all; the answer is the same either way, only the work differs.
    int dominant = dominant(job);
    int resource = job.resourceIds[dominant];
    int end = free.size();
    int p = free.firstWithFreeAtLeast(resource, job.quantities[dominant]);
    boolean someFits = false;
    for (int walked = 0; p < end; p++, walked++) {
      if (walked == WALK_BEFORE_ASKING
          && !(someFits =
              releasedThisPassFits(job, origin, excluded) || free.anyFits(job, origin, excluded))) {
        break;
      }
      int node = free.byFree(resource, p);
      if (node != origin && node != excluded && pool.fitsOthersNow(node, job)) {
        return node;
      }
    }
    if (someFits) {
      throw new IllegalStateException("a node fits " + job.key + " but the walk found none");
    }
    // No node other than the skipped ones fits.
    if (origin < 0 || !pool.takesOthersWork(origin)) {
      if (excluded < 0 || !pool.takesOthersWork(excluded)) {
        unplaceable.put(job.shape, pool.releases());
        unplaceableThisPass.add(job.shape);
      } else {
        unplaceableWithout.add(job.shape);
      }
    }
    return -1;
  }

  /**
   * The best fit for a job with a nodeSelector, by the same rule as the walk (least free of the
   * dominant resource, ties to the lowest index) over the nodes it selects only. The free-space
   * indexes and the memos by request shape know nothing of labels, so this looks at every node.
   */
  private int bestSelected(PreparedJob job, int excluded) {
    int resource = job.resourceIds[dominant(job)];
    int best = -1;
    long bestFree = 0;
    for (int node = 0; node < pool.size(); node++) {
      if (node == job.origin
          || node == excluded
          || !job.mayUse(node)
          || !pool.takesOthersWork(node)
          || !pool.fitsOthersNow(node, job)) {
        continue;
      }
      long free = pool.othersFree(node, resource);
      if (best < 0 || free < bestFree) {
        best = node;
        bestFree = free;
      }
    }
    return best;
  }

  /**
   * {@link #place} for a job kept off more than one node (one held for a starving job, others for
   * queues reclaiming their min): its origin first, then the best fit by the same walk, skipping
   * every node in {@code avoided}. Asked only when the best fit was one of them, so the walk soon
   * finds the next; it keeps no memo. A job with a nodeSelector looks at every node, as in {@link
   * #place}.
   */
  int placeAvoiding(PreparedJob job, int[] avoided) {
    if (job.selectable != null) {
      return scanAvoiding(job, avoided);
    }
    int origin = job.origin;
    if (origin >= 0
        && !contains(avoided, origin)
        && pool.fitsNow(origin, job)
        && !(job.deferrable && pool.busyResourceFor(origin, job) >= 0)) {
      return origin;
    }
    int dominant = dominant(job);
    int resource = job.resourceIds[dominant];
    for (int p = free.firstWithFreeAtLeast(resource, job.quantities[dominant]);
        p < free.size();
        p++) {
      int node = free.byFree(resource, p);
      if (node != origin && !contains(avoided, node) && pool.fitsOthersNow(node, job)) {
        return node;
      }
    }
    return -1;
  }

  /** {@link #placeAvoiding} for a job with a nodeSelector: every node looked at. */
  private int scanAvoiding(PreparedJob job, int[] avoided) {
    int origin = job.origin;
    if (origin >= 0
        && !contains(avoided, origin)
        && pool.fitsNow(origin, job)
        && !(job.deferrable && pool.busyResourceFor(origin, job) >= 0)) {
      return origin;
    }
    int resource = job.resourceIds[dominant(job)];
    int best = -1;
    long bestFree = 0;
    for (int node = 0; node < pool.size(); node++) {
      if (node == origin
          || contains(avoided, node)
          || !job.mayUse(node)
          || !pool.takesOthersWork(node)
          || !pool.fitsOthersNow(node, job)) {
        continue;
      }
      long free = pool.othersFree(node, resource);
      if (best < 0 || free < bestFree) {
        best = node;
        bestFree = free;
      }
    }
    return best;
  }

  private static boolean contains(int[] nodes, int node) {
    for (int n : nodes) {
      if (n == node) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a node released since this pass started, other than the skipped ones, has room for the
   * job now: then some node fits and the walk will find the best one without asking the tree. In
   * the passes a forecast simulates, most jobs decided are there because such a node fits them.
   */
  private boolean releasedThisPassFits(PreparedJob job, int skipA, int skipB) {
    int now = pool.releases();
    if (now - releasesAtPassStart > RELEASED_THIS_PASS_CHECKED_AT_MOST) {
      return false;
    }
    for (int i = releasesAtPassStart; i < now; i++) {
      int node = pool.releasedNode(i);
      if (node != skipA
          && node != skipB
          && pool.takesOthersWork(node)
          && pool.fitsOthersNow(node, job)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the job's shape is known to fit no node now (see {@link #unplaceable}). */
  private boolean stillUnplaceable(PreparedJob job) {
    Integer since = unplaceable.get(job.shape);
    if (since == null) {
      return false;
    }
    int now = pool.releases();
    if (now - since > RELEASES_CHECKED_AT_MOST) {
      unplaceable.remove(job.shape);
      return false;
    }
    for (int i = since; i < now; i++) {
      int node = pool.releasedNode(i);
      if (pool.takesOthersWork(node) && pool.fitsOthersNow(node, job)) {
        unplaceable.remove(job.shape);
        return false;
      }
    }
    if (since != now) {
      unplaceable.put(job.shape, now);
    }
    return true;
  }

  /**
   * The dominant resource of a job: the request that is the largest share of the eligible nodes'
   * total offer (DRF's dominant share), ties to the first name. Placement best-fits on it.
   */
  int dominant(PreparedJob job) {
    if (job.dominant >= 0) {
      return job.dominant;
    }
    int best = 0;
    for (int k = 1; k < job.resourceIds.length; k++) {
      long totalK = free.totalOffer(job.resourceIds[k]);
      long totalBest = free.totalOffer(job.resourceIds[best]);
      // A resource nobody offers is an infinite share: it decides (the job will not fit anyway).
      if (totalBest == 0) {
        break;
      }
      if (totalK == 0
          || QuantityMath.compareFractions(
                  job.quantities[k], totalK, job.quantities[best], totalBest)
              > 0) {
        best = k;
      }
    }
    job.rememberDominant(best);
    return best;
  }

  /**
   * True when some eligible node's full offer holds the job (WaitingForCapacity, not NoNodeFits);
   * for a gang, when the full offers together hold every replica at once.
   */
  boolean fitsSomeFullOffer(PreparedJob job) {
    if (job.replicas > 1) {
      return gangs.fitsWholeSomeday(job); // every replica at once, on one node or several
    }
    if (job.selectable != null) {
      for (int node = 0; node < pool.size(); node++) {
        if (pool.fitsFullOffer(node, job)) {
          return true;
        }
      }
      return false;
    }
    if (job.origin >= 0) {
      return pool.fitsFullOffer(job.origin, job) || fitsSomeOtherFullOffer(job);
    }
    return fullOfferFits.computeIfAbsent(job.shape, shape -> fitsSomeOtherFullOffer(job));
  }

  private boolean fitsSomeOtherFullOffer(PreparedJob job) {
    if (job.requestsNothing()) {
      for (int p = 0; p < free.size(); p++) {
        if (free.byLoad(p) != job.origin) {
          return true;
        }
      }
      return false;
    }
    int dominantResource = job.resourceIds[dominant(job)];
    long need = job.quantities[dominant(job)];
    for (int node : free.byOfferDescending(dominantResource)) {
      if (pool.othersOffer(node, dominantResource) < need) {
        return false;
      }
      if (node != job.origin && pool.fitsFullOffer(node, job)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The node where a job that fits some full offer but no free share would fit soonest: among
   * eligible nodes whose full offer holds it, the one whose largest shortfall (allocation plus
   * request minus offer, as a share of the offer) is smallest, ties to the first name. -1 if none.
   */
  int soonest(PreparedJob job) {
    // Asked again for the same job (later passes of a forecast): only nodes whose allocation
    // changed since can have become the best, unless the best itself changed.
    if (job.index == soonestFor && soonestNode >= 0 && pool.nodeVersion(soonestNode) <= soonestAt) {
      int best = soonestNode;
      long[] bestKey = shortfallShare(best, job);
      for (int node = 0; node < pool.size(); node++) {
        if (pool.nodeVersion(node) > soonestAt && node != best && pool.fitsFullOffer(node, job)) {
          long[] key = shortfallShare(node, job);
          int c = QuantityMath.compareFractions(key[0], key[1], bestKey[0], bestKey[1]);
          if (c < 0 || (c == 0 && node < best)) {
            best = node;
            bestKey = key;
          }
        }
      }
      return remember(job, best);
    }
    int best = -1;
    long[] bestKey = null;
    for (int node = 0; node < pool.size(); node++) {
      if (!pool.fitsFullOffer(node, job)) {
        continue;
      }
      long[] key = shortfallShare(node, job);
      if (best < 0 || QuantityMath.compareFractions(key[0], key[1], bestKey[0], bestKey[1]) < 0) {
        best = node;
        bestKey = key;
      }
    }
    return remember(job, best);
  }

  private int remember(PreparedJob job, int best) {
    soonestFor = job.index;
    soonestNode = best;
    soonestAt = pool.version();
    return best;
  }

  /** The job's largest shortfall on the node as {shortfall, offer}: {0, 1} when it fits now. */
  long[] shortfallShare(int node, PreparedJob job) {
    long worstShort = 0;
    long worstOffer = 1;
    for (int k = 0; k < job.resourceIds.length; k++) {
      int res = job.resourceIds[k];
      long offer = pool.offerFor(node, job, res);
      // Saturating: an allocation summed past 2^63 must still read as "far short".
      long shortfall =
          Math.max(0, Quantities.subtract(job.quantities[k], pool.freeFor(node, job, res)));
      if (shortfall > 0
          && QuantityMath.compareFractions(shortfall, offer, worstShort, worstOffer) > 0) {
        worstShort = shortfall;
        worstOffer = offer;
      }
    }
    return new long[] {worstShort, worstOffer};
  }

  /**
   * Forgets what this pass learnt about shapes unplaceable by the rule of covering, or but for a
   * skipped node: allocation may have shrunk since. Exact shapes unplaceable everywhere are checked
   * against the releases instead.
   */
  void startPass() {
    releasesAtPassStart = pool.releases();
    unplaceableThisPass.clear();
    unplaceableWithout.clear();
    memoExcluded = -1;
  }
}
