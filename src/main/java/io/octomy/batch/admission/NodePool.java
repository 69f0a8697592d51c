package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * <p>A node whose agent still reports a run whose job is gone ({@link NodeView#strayRuns()}) counts
 * as fully allocated until that run is reported ended.
 *
 * <p>The nodes eligible for others' work are indexed by free amount ({@link FreeSpaceIndex});
 * reserving and releasing keep that index in step. Where a job goes is decided by {@link
 * Placement}.
 */
final class NodePool {

  private final ResourceIndex resources;
  private final int r;
  private final NodeView[] nodes;
  private final Map<String, Integer> indexByName;
  private final boolean[] ready;
  private final long[] othersOffer;
  private final long[] ownOffer;
  private final long[] allocated;

  /**
   * Others' offer minus allocation, per node and resource, kept beside both from {@link #index} on:
   * the best-fit walk checks up to sixteen nodes per job, each a cache miss away, and reads one
   * number per request there instead of two.
   */
  private final long[] othersFree;

  private final int[] jobCount;
  private final int readyCount;

  /**
   * Per node: the first resource (lowest id) whose measured use is at or above its offer for
   * others' work, or -1 when the node is not busy for it; the same for the node's own work.
   */
  private final int[] busyForOthers;

  private final int[] busyForOwn;

  private final FreeSpaceIndex free;

  /**
   * Per distinct nodeSelector, by node index: whether the node's labels hold every pair. Labels do
   * not change in a pass or a forecast, and the jobs of a pipeline or an array share a selector.
   */
  private final Map<Map<String, String>, boolean[]> selections = new HashMap<>();

  /** No node: what two disagreeing selectors select. Shared, not to be changed. */
  private final boolean[] nowhere;

  /** Per node: {@link #version} when its allocation last changed; for the memo of soonest. */
  private final long[] nodeVersion;

  private long version;

  /**
   * The nodes whose allocation shrank, in order (the ends of a forecast); see {@link Placement}.
   */
  private int[] releasedNodes = new int[64];

  private int releases;

  NodePool(Snapshot snapshot, ResourceIndex resources) {
    this.resources = resources;
    this.r = resources.count();
    List<NodeView> sorted = new ArrayList<>(snapshot.nodes());
    sorted.sort(Comparator.comparing(NodeView::name));
    nodes = sorted.toArray(NodeView[]::new);
    int n = nodes.length;
    indexByName = new HashMap<>(n * 2);
    ready = new boolean[n];
    nowhere = new boolean[n];
    othersOffer = new long[n * r];
    ownOffer = new long[n * r];
    allocated = new long[n * r];
    othersFree = new long[n * r];
    jobCount = new int[n];
    nodeVersion = new long[n];
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
        if (!node.strayRuns().isEmpty()) {
          // Runs whose jobs are gone hold what they were admitted with, which is no longer known:
          // the whole offer, until the agent reports them ended.
          allocated[i * r + id] = Math.max(othersOffer[i * r + id], ownOffer[i * r + id]);
        }
      }
      busyForOthers[i] = busyResource(i, othersOffer);
      busyForOwn[i] = busyResource(i, ownOffer);
    }
    readyCount = readyNodes;
    free = new FreeSpaceIndex(n, r, othersOffer, allocated, jobCount);
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

  /**
   * Builds the placement indexes once the existing allocation is counted, from the last pass's
   * orders as built when they are over the same nodes ({@code last}, null for none).
   */
  void index(NodeOrders last) {
    for (int at = 0; at < othersFree.length; at++) {
      othersFree[at] = othersOffer[at] - allocated[at];
    }
    int[] eligible = new int[nodes.length];
    int count = 0;
    for (int i = 0; i < nodes.length; i++) {
      if (eligibleForOthers(i)) {
        eligible[count++] = i;
      }
    }
    free.build(Arrays.copyOf(eligible, count), last);
  }

  FreeSpaceIndex freeSpace() {
    return free;
  }

  /** Per node: the pool's change count when its allocation last changed. */
  long nodeVersion(int node) {
    return nodeVersion[node];
  }

  /** The pool's change count: one more for each reservation or release. */
  long version() {
    return version;
  }

  long othersOffer(int node, int resource) {
    return othersOffer[node * r + resource];
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

  /** How many admitted and running jobs (a gang's replicas each) the node holds in the pass. */
  int jobCount(int node) {
    return jobCount[node];
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

  /** Runs the agent reports still going whose jobs are gone; the node is full while any is. */
  List<String> strayRuns(int node) {
    return nodes[node].strayRuns();
  }

  long allocated(int node, int resource) {
    return allocated[node * r + resource];
  }

  long offerFor(int node, PreparedJob job, int resource) {
    return (node == job.origin ? ownOffer : othersOffer)[node * r + resource];
  }

  /** What the ready nodes offer other nodes' work of a resource, together (saturating). */
  long readyOthersOffer(int resource) {
    long total = 0;
    for (int i = 0; i < nodes.length; i++) {
      if (eligibleForOthers(i)) {
        total = QuantityMath.add(total, othersOffer(i, resource));
      }
    }
    return total;
  }

  private boolean eligibleForOthers(int node) {
    return ready[node] && nodes[node].mode() != NodeMode.Off;
  }

  /**
   * Ready, its labels match the job's nodeSelector, and the mode that applies to this job is not
   * Off.
   */
  boolean eligible(int node, PreparedJob job) {
    return ready[node] && job.mayUse(node) && modeFor(node, job) != NodeMode.Off;
  }

  /**
   * Per node index, whether its labels hold every pair of the selector; null for an empty or null
   * selector (every node). The array is shared: not to be changed.
   */
  boolean[] selectable(Map<String, String> selector) {
    if (selector == null || selector.isEmpty()) {
      return null;
    }
    return selections.computeIfAbsent(
        selector,
        wanted -> {
          boolean[] match = new boolean[nodes.length];
          for (int i = 0; i < nodes.length; i++) {
            match[i] = nodes[i].labels().entrySet().containsAll(wanted.entrySet());
          }
          return match;
        });
  }

  /**
   * Per node index, whether a job whose labels are asked for as {@code placement} may use it:
   * nowhere when two selectors disagree, else as {@link #selectable(Map)}.
   */
  boolean[] selectable(QueueSelectors.PlacementLabels placement) {
    if (placement.conflict() != null) {
      return nowhere;
    }
    return selectable(placement.selector());
  }

  /** How many ready nodes the job's nodeSelector lets it use, whatever their mode. */
  int selectedReadyCount(PreparedJob job) {
    if (job.selectable == null) {
      return readyCount;
    }
    int count = 0;
    for (int i = 0; i < nodes.length; i++) {
      if (ready[i] && job.selectable[i]) {
        count++;
      }
    }
    return count;
  }

  /** True when some ready node accepts this job's kind of work at all (mode not Off for it). */
  boolean anyEligible(PreparedJob job) {
    if (job.selectable != null) {
      for (int i = 0; i < nodes.length; i++) {
        if (eligible(i, job)) {
          return true;
        }
      }
      return false;
    }
    if (job.origin >= 0) {
      return eligible(job.origin, job) || free.size() > (free.contains(job.origin) ? 1 : 0);
    }
    return free.size() > 0;
  }

  private long free(int node, int resource) {
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
  boolean fitsOthersNow(int node, PreparedJob job) {
    int base = node * r;
    for (int k = 0; k < job.resourceIds.length; k++) {
      int at = base + job.resourceIds[k];
      if (job.quantities[k] > othersFree[at]) {
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

  /** Reserves the job's requests on the node, keeping the indexes in order. */
  void reserve(int node, PreparedJob job) {
    change(node, job, +1);
  }

  /**
   * Returns a finished job's requests to the node, keeping the indexes in order. Only for passes
   * simulated after this one ({@link FuturePasses}); {@link Placement#startPass()} must follow
   * before the next placement, since its memos within a pass assume allocation only grows. The node
   * is logged ({@link #releasedNode}): across passes, only a logged node can have made room.
   */
  void release(int node, PreparedJob job) {
    change(node, job, -1);
    if (releases == releasedNodes.length) {
      releasedNodes = Arrays.copyOf(releasedNodes, releases * 2);
    }
    releasedNodes[releases++] = node;
  }

  /** How many releases there have been. */
  int releases() {
    return releases;
  }

  /** The node of the {@code i}-th release. */
  int releasedNode(int i) {
    return releasedNodes[i];
  }

  private void change(int node, PreparedJob job, int sign) {
    nodeVersion[node] = ++version;
    jobCount[node] = Math.max(0, jobCount[node] + sign);
    for (int k = 0; k < job.resourceIds.length; k++) {
      int at = node * r + job.resourceIds[k];
      if (sign > 0) {
        allocated[at] = QuantityMath.add(allocated[at], job.quantities[k]);
      } else if (allocated[at] != Long.MAX_VALUE) {
        // A saturated sum stays saturated: it can only make a job not fit.
        allocated[at] = Math.max(0, allocated[at] - job.quantities[k]);
      }
      othersFree[at] = othersOffer[at] - allocated[at];
    }
    if (eligibleForOthers(node)) {
      free.update(node, job);
    }
  }

  /** Whether the node takes others' work at all: ready and its mode not Off. */
  boolean takesOthersWork(int node) {
    return eligibleForOthers(node);
  }

  /** Others' offer minus allocation on the node, never below 0. */
  long othersFree(int node, int resource) {
    return Math.max(0, free(node, resource));
  }

  int resourceCount() {
    return r;
  }

  /**
   * The eligible node with the most free of a resource for this job (its origin counted with
   * ownMode's offer), or -1 when no node is eligible.
   */
  int mostFree(PreparedJob job, int resource) {
    int best = -1;
    for (int p = free.size() - 1; p >= 0; p--) {
      int node = free.byFree(resource, p);
      if (node != job.origin && job.mayUse(node)) {
        best = node;
        break;
      }
    }
    return betterForOrigin(job, resource, best, true);
  }

  /** The eligible node with the largest offer of a resource for this job, or -1. */
  int largestOffer(PreparedJob job, int resource) {
    int best = -1;
    for (int node : free.byOfferDescending(resource)) {
      if (node != job.origin && job.mayUse(node)) {
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
