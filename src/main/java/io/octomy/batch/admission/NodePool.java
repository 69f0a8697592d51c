package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Quantities;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The nodes of one pass: offers, allocation and the indexes that make placement cheap.
 *
 * <p>Nodes are numbered in name order, so "lowest index" means "first by name" in every tie. Every
 * per-node, per-resource number lives in a flat {@code long[]} at {@code node * R + r}.
 *
 * <p>A node is <em>eligible</em> for a job when it is ready and the mode that applies to the job
 * ({@code ownMode} for its own work, {@code mode} otherwise) is not Off. Off accepts nothing, not
 * even a job that requests nothing. A node is <em>busy</em> for a kind of work when it measures at
 * least as much of some resource in use (ours and everything else) as it offers of it; a BestEffort
 * job that is not starving is not placed on a busy node.
 *
 * <p>For others' work (the common case) each resource has a {@link TreeSet} of the eligible nodes
 * ordered by free amount (offer minus allocation) then index, and a max segment tree of the same
 * free amounts. Placement first asks the trees whether any node fits at all (pruning every subtree
 * where some request exceeds the largest free amount), then walks the set of the job's dominant
 * resource upwards from the request: the first node where every other request fits too is the best
 * fit. Jobs asking for exactly the amounts of a job that fitted nowhere are answered from a memo.
 * Reserving moves a node within the sets and trees of the resources it took, O(R log N).
 */
final class NodePool {

  /** Index used as a search key in the free-order sets: it compares as {@link #probeFree}. */
  private static final int PROBE = -1;

  private final ResourceIndex resources;
  private final int r;
  private final NodeView[] nodes;
  private final Map<String, Integer> indexByName;
  private final boolean[] ready;
  private final long[] othersOffer;
  private final long[] ownOffer;
  private final long[] allocated;
  private final int[] jobCount;
  private final int readyCount;

  /**
   * Per node: the first resource (lowest id) whose measured use is at or above its offer for
   * others' work, or -1 when the node is not busy for it; the same for the node's own work.
   */
  private final int[] busyForOthers;

  private final int[] busyForOwn;

  /** Per resource: eligible-for-others nodes by others' free amount, then index. */
  private final List<TreeSet<Integer>> freeOrder = new ArrayList<>();

  /**
   * Per resource: a max segment tree over node indexes of others' free amount (leaves at {@code
   * leaves + node}; nodes not eligible for others' work hold {@link Long#MIN_VALUE}). A search for
   * any node that fits prunes every subtree where some request exceeds the largest free amount, so
   * "fits nowhere" is usually answered without visiting many nodes.
   */
  private final long[][] maxFree;

  private final int leaves;

  /** Eligible-for-others nodes by number of admitted or running jobs, then index. */
  private final TreeSet<Integer> byJobCount;

  /** Per resource: eligible-for-others nodes by others' offer, largest first (static). */
  private final int[][] byOfferDescending;

  /**
   * Per resource: the sum of others' offers of eligible nodes (saturating), for the dominant share.
   */
  private final long[] totalOthersOffer;

  private long probeFree;

  /**
   * Request shapes that found no node in a walk that skipped no node. Allocation only grows during
   * a pass and skipping nodes only removes candidates, so such a shape fits nowhere for the rest of
   * the pass: later jobs asking for the same amounts are answered without a walk.
   */
  private final Set<RequestShape> unplaceable = new HashSet<>();

  /**
   * The same, for walks that skipped only {@link #memoExcluded} (the node held for a starving job).
   */
  private final Set<RequestShape> unplaceableWithout = new HashSet<>();

  private int memoExcluded = -1;

  /**
   * Memo of {@link #fitsSomeFullOffer} for jobs without an origin; offers do not change in a pass.
   */
  private final Map<RequestShape, Boolean> fullOfferFits = new HashMap<>();

  NodePool(Snapshot snapshot, ResourceIndex resources) {
    this.resources = resources;
    this.r = resources.count();
    List<NodeView> sorted = new ArrayList<>(snapshot.nodes());
    sorted.sort(Comparator.comparing(NodeView::name));
    nodes = sorted.toArray(NodeView[]::new);
    int n = nodes.length;
    indexByName = new HashMap<>(n * 2);
    ready = new boolean[n];
    othersOffer = new long[n * r];
    ownOffer = new long[n * r];
    allocated = new long[n * r];
    jobCount = new int[n];
    busyForOthers = new int[n];
    busyForOwn = new int[n];
    ModeTable table = snapshot.policy().modes();
    int readyNodes = 0;
    for (int i = 0; i < n; i++) {
      NodeView node = nodes[i];
      if (indexByName.put(node.name(), i) != null) {
        throw new IllegalArgumentException("snapshot lists node " + node.name() + " twice");
      }
      ready[i] =
          node.ready()
              && NodeView.heartbeatFresh(
                  node.heartbeat(), snapshot.now(), snapshot.policy().nodeHeartbeatTimeout());
      if (ready[i]) {
        readyNodes++;
      }
      for (Map.Entry<String, Long> e : node.capacity().entrySet()) {
        int id = resources.id(e.getKey());
        othersOffer[i * r + id] = table.offer(node.mode(), e.getKey(), e.getValue());
        ownOffer[i * r + id] = table.offer(node.ownMode(), e.getKey(), e.getValue());
      }
      busyForOthers[i] = busyResource(i, othersOffer);
      busyForOwn[i] = busyResource(i, ownOffer);
    }
    readyCount = readyNodes;
    byJobCount =
        new TreeSet<>(
            (a, b) -> {
              int c = Integer.compare(jobCount[a], jobCount[b]);
              return c != 0 ? c : Integer.compare(a, b);
            });
    byOfferDescending = new int[r][];
    totalOthersOffer = new long[r];
    leaves = Integer.highestOneBit(Math.max(1, n) * 2 - 1); // the power of two >= n
    maxFree = new long[r][2 * leaves];
  }

  /** The first resource the node offers (offer > 0) and measures at least that much in use of. */
  private int busyResource(int node, long[] offers) {
    int busy = -1;
    for (Map.Entry<String, Long> e : nodes[node].usage().entrySet()) {
      int id = resources.id(e.getKey());
      if (id < 0 || e.getValue() == null) {
        continue;
      }
      long offer = offers[node * r + id];
      if (offer > 0 && e.getValue() >= offer && (busy < 0 || id < busy)) {
        busy = id;
      }
    }
    return busy;
  }

  /**
   * The resource that makes {@code node} busy for this job's kind of work (measured use at or above
   * the offer that applies to it), or -1 when it is not busy.
   */
  int busyResourceFor(int node, PreparedJob job) {
    return node == job.origin ? busyForOwn[node] : busyForOthers[node];
  }

  /** What the node measures in use of a resource, or 0 when it does not say. */
  long usage(int node, int resource) {
    return nodes[node].usage().getOrDefault(resources.name(resource), 0L);
  }

  /**
   * Counts a job that is already Admitted or Running on {@code node}; call before {@link #index()}.
   */
  void countExisting(int node, PreparedJob job) {
    jobCount[node]++;
    for (int k = 0; k < job.resourceIds.length; k++) {
      int at = node * r + job.resourceIds[k];
      allocated[at] = QuantityMath.add(allocated[at], job.quantities[k]);
    }
  }

  /** Builds the placement indexes once the existing allocation is counted. */
  void index() {
    List<Integer> eligible = new ArrayList<>();
    for (int i = 0; i < nodes.length; i++) {
      if (eligibleForOthers(i)) {
        eligible.add(i);
        byJobCount.add(i);
      }
    }
    for (int res = 0; res < r; res++) {
      final int id = res;
      TreeSet<Integer> set =
          new TreeSet<>(
              (a, b) -> {
                int c = Long.compare(free(a, id), free(b, id));
                return c != 0 ? c : Integer.compare(a, b);
              });
      set.addAll(eligible);
      freeOrder.add(set);
      byOfferDescending[res] =
          eligible.stream()
              .sorted(
                  Comparator.comparingLong((Integer i) -> -othersOffer[i * r + id])
                      .thenComparingInt(i -> i))
              .mapToInt(Integer::intValue)
              .toArray();
      long total = 0;
      for (int i : eligible) {
        total = QuantityMath.add(total, othersOffer[i * r + id]);
      }
      totalOthersOffer[res] = total;
      long[] tree = maxFree[res];
      Arrays.fill(tree, Long.MIN_VALUE);
      for (int i : eligible) {
        tree[leaves + i] = free(i, id);
      }
      for (int t = leaves - 1; t >= 1; t--) {
        tree[t] = Math.max(tree[2 * t], tree[2 * t + 1]);
      }
    }
  }

  /** Whether some eligible node other than the two skipped ones has every request free now. */
  private boolean anyFits(int t, PreparedJob job, int skipA, int skipB) {
    for (int k = 0; k < job.resourceIds.length; k++) {
      if (maxFree[job.resourceIds[k]][t] < job.quantities[k]) {
        return false;
      }
    }
    if (t >= leaves) {
      int node = t - leaves;
      return node != skipA && node != skipB;
    }
    return anyFits(2 * t, job, skipA, skipB) || anyFits(2 * t + 1, job, skipA, skipB);
  }

  private void updateMaxFree(int node, int resource) {
    long[] tree = maxFree[resource];
    int t = leaves + node;
    tree[t] = free(node, resource);
    for (t >>= 1; t >= 1; t >>= 1) {
      tree[t] = Math.max(tree[2 * t], tree[2 * t + 1]);
    }
  }

  int indexOf(String name) {
    if (name == null) {
      return -1;
    }
    Integer i = indexByName.get(name);
    return i == null ? -1 : i;
  }

  int size() {
    return nodes.length;
  }

  int readyCount() {
    return readyCount;
  }

  String name(int node) {
    return nodes[node].name();
  }

  /** The mode that applies to {@code job} on {@code node}. */
  NodeMode modeFor(int node, PreparedJob job) {
    return node == job.origin ? nodes[node].ownMode() : nodes[node].mode();
  }

  long allocated(int node, int resource) {
    return allocated[node * r + resource];
  }

  long offerFor(int node, PreparedJob job, int resource) {
    return (node == job.origin ? ownOffer : othersOffer)[node * r + resource];
  }

  private boolean eligibleForOthers(int node) {
    return ready[node] && nodes[node].mode() != NodeMode.Off;
  }

  /** Ready, and the mode that applies to this job is not Off. */
  boolean eligible(int node, PreparedJob job) {
    return ready[node] && modeFor(node, job) != NodeMode.Off;
  }

  /** True when some ready node accepts this job's kind of work at all (mode not Off for it). */
  boolean anyEligible(PreparedJob job) {
    if (job.origin >= 0) {
      return eligible(job.origin, job)
          || byJobCount.size() > (byJobCount.contains(job.origin) ? 1 : 0);
    }
    return !byJobCount.isEmpty();
  }

  private long free(int node, int resource) {
    if (node == PROBE) {
      return probeFree;
    }
    return othersOffer[node * r + resource] - allocated[node * r + resource];
  }

  /** Offer minus allocation for this job on this node; negative after a mode change. */
  long freeFor(int node, PreparedJob job, int resource) {
    return offerFor(node, job, resource) - allocated[node * r + resource];
  }

  /** Every positive request fits in offer minus allocation. */
  boolean fitsNow(int node, PreparedJob job) {
    if (!eligible(node, job)) {
      return false;
    }
    long[] offers = node == job.origin ? ownOffer : othersOffer;
    int base = node * r;
    for (int k = 0; k < job.resourceIds.length; k++) {
      int at = base + job.resourceIds[k];
      if (job.quantities[k] > offers[at] - allocated[at]) {
        return false;
      }
    }
    return true;
  }

  /** {@link #fitsNow} for a node known to be eligible for others' work, and not the origin. */
  private boolean fitsOthersNow(int node, PreparedJob job) {
    int base = node * r;
    for (int k = 0; k < job.resourceIds.length; k++) {
      int at = base + job.resourceIds[k];
      if (job.quantities[k] > othersOffer[at] - allocated[at]) {
        return false;
      }
    }
    return true;
  }

  /** Every positive request fits in the full offer, whatever is allocated. */
  boolean fitsFullOffer(int node, PreparedJob job) {
    if (!eligible(node, job)) {
      return false;
    }
    long[] offers = node == job.origin ? ownOffer : othersOffer;
    int base = node * r;
    for (int k = 0; k < job.resourceIds.length; k++) {
      if (job.quantities[k] > offers[base + job.resourceIds[k]]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The dominant resource of a job: the request that is the largest share of the eligible nodes'
   * total offer (DRF's dominant share), ties to the first name. Placement best-fits on it.
   */
  private int dominant(PreparedJob job) {
    if (job.dominant >= 0) {
      return job.dominant;
    }
    int best = 0;
    for (int k = 1; k < job.resourceIds.length; k++) {
      long totalK = totalOthersOffer[job.resourceIds[k]];
      long totalBest = totalOthersOffer[job.resourceIds[best]];
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
    job.dominant = best;
    return best;
  }

  /**
   * Where the job goes now, or -1. Its origin node first when it fits there (with ownMode's offer);
   * otherwise the best fit: the eligible node with the least free amount of the job's dominant
   * resource that still holds every request, ties to the first name. A job that requests nothing
   * goes to the eligible node with the fewest admitted or running jobs, ties to the first name.
   * {@code excluded} (a node held for a starving job) is never chosen.
   */
  int place(PreparedJob job, int excluded) {
    int origin = job.origin;
    if (origin >= 0
        && origin != excluded
        && fitsNow(origin, job)
        && !(job.deferrable && busyForOwn[origin] >= 0)) {
      return origin;
    }
    if (job.requestsNothing()) {
      for (int node : byJobCount) {
        if (node != origin && node != excluded && !(job.deferrable && busyForOthers[node] >= 0)) {
          return node;
        }
      }
      return -1;
    }
    if (excluded != memoExcluded) {
      unplaceableWithout.clear();
      memoExcluded = excluded;
    }
    if (unplaceable.contains(job.shape)
        || (excluded >= 0 && unplaceableWithout.contains(job.shape))) {
      return -1;
    }
    if (!anyFits(1, job, origin, excluded)) {
      if (origin < 0 || !eligibleForOthers(origin)) {
        (excluded < 0 || !eligibleForOthers(excluded) ? unplaceable : unplaceableWithout)
            .add(job.shape);
      }
      return -1;
    }
    // Some node fits: walk the dominant resource upwards from the request to the best fit.
    int dominant = dominant(job);
    probeFree = job.quantities[dominant];
    for (int node : freeOrder.get(job.resourceIds[dominant]).tailSet(PROBE, true)) {
      if (node != origin && node != excluded && fitsOthersNow(node, job)) {
        return node;
      }
    }
    throw new IllegalStateException("a node fits " + job.key + " but the walk found none");
  }

  /**
   * True when some eligible node's full offer holds the job (WaitingForCapacity, not NoNodeFits).
   */
  boolean fitsSomeFullOffer(PreparedJob job) {
    if (job.origin >= 0) {
      return fitsFullOffer(job.origin, job) || fitsSomeOtherFullOffer(job);
    }
    return fullOfferFits.computeIfAbsent(job.shape, shape -> fitsSomeOtherFullOffer(job));
  }

  private boolean fitsSomeOtherFullOffer(PreparedJob job) {
    if (job.requestsNothing()) {
      for (int node : byJobCount) {
        if (node != job.origin) {
          return true;
        }
      }
      return false;
    }
    int dominantResource = job.resourceIds[dominant(job)];
    long need = job.quantities[dominant(job)];
    for (int node : byOfferDescending[dominantResource]) {
      if (othersOffer[node * r + dominantResource] < need) {
        return false;
      }
      if (node != job.origin && fitsFullOffer(node, job)) {
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
    int best = -1;
    long bestShort = 0;
    long bestOffer = 1;
    for (int node = 0; node < nodes.length; node++) {
      if (!fitsFullOffer(node, job)) {
        continue;
      }
      long worstShort = 0;
      long worstOffer = 1;
      for (int k = 0; k < job.resourceIds.length; k++) {
        int res = job.resourceIds[k];
        long offer = offerFor(node, job, res);
        // Saturating: an allocation summed past 2^63 must still read as "far short".
        long shortfall =
            Math.max(0, Quantities.subtract(job.quantities[k], freeFor(node, job, res)));
        if (shortfall > 0
            && QuantityMath.compareFractions(shortfall, offer, worstShort, worstOffer) > 0) {
          worstShort = shortfall;
          worstOffer = offer;
        }
      }
      if (best < 0
          || QuantityMath.compareFractions(worstShort, worstOffer, bestShort, bestOffer) < 0) {
        best = node;
        bestShort = worstShort;
        bestOffer = worstOffer;
      }
    }
    return best;
  }

  /** Reserves the job's requests on the node, keeping the indexes in order. */
  void reserve(int node, PreparedJob job) {
    boolean indexed = eligibleForOthers(node);
    if (indexed) {
      byJobCount.remove(node);
    }
    jobCount[node]++;
    if (indexed) {
      byJobCount.add(node);
    }
    for (int k = 0; k < job.resourceIds.length; k++) {
      int res = job.resourceIds[k];
      TreeSet<Integer> set = freeOrder.get(res);
      if (indexed) {
        set.remove(node);
      }
      int at = node * r + res;
      allocated[at] = QuantityMath.add(allocated[at], job.quantities[k]);
      if (indexed) {
        set.add(node);
        updateMaxFree(node, res);
      }
    }
  }

  /**
   * The eligible node with the most free of a resource for this job (its origin counted with
   * ownMode's offer), or -1 when no node is eligible.
   */
  int mostFree(PreparedJob job, int resource) {
    int best = -1;
    for (var it = freeOrder.get(resource).descendingIterator(); it.hasNext(); ) {
      int node = it.next();
      if (node != job.origin) {
        best = node;
        break;
      }
    }
    return betterForOrigin(job, resource, best, true);
  }

  /** The eligible node with the largest offer of a resource for this job, or -1. */
  int largestOffer(PreparedJob job, int resource) {
    int best = -1;
    for (int node : byOfferDescending[resource]) {
      if (node != job.origin) {
        best = node;
        break;
      }
    }
    return betterForOrigin(job, resource, best, false);
  }

  /** Compares the origin node (with ownMode's offer) against the best other node. */
  private int betterForOrigin(PreparedJob job, int resource, int best, boolean byFree) {
    int origin = job.origin;
    if (origin < 0 || !eligible(origin, job)) {
      return best;
    }
    if (best < 0) {
      return origin;
    }
    long originValue = byFree ? freeFor(origin, job, resource) : offerFor(origin, job, resource);
    long bestValue = byFree ? freeFor(best, job, resource) : offerFor(best, job, resource);
    return originValue > bestValue || (originValue == bestValue && origin < best) ? origin : best;
  }

  String resourceName(int resource) {
    return resources.name(resource);
  }
}
