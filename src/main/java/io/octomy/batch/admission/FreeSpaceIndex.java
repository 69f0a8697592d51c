package io.octomy.batch.admission;

import java.util.Arrays;

/**
 * The placement indexes over the nodes that take others' work (ready, mode not Off), kept in step
 * with the allocation {@link NodePool} owns.
 *
 * <p>Each resource has the nodes in order of free amount (others' offer minus allocation) then
 * index ({@link RankedNodes}), and all resources share one max segment tree of the same free
 * amounts, the R maxima of a tree node side by side so that one look at a subtree reads one block
 * of memory. "Does any node fit?" is asked of the tree (pruning every subtree where some request
 * exceeds the largest free amount); the best fit is found by walking a resource's order upwards
 * from the request. A change of a node's allocation moves it in its orders and updates its path in
 * the tree ({@link #update}), O(R log N) plus the nodes it passes.
 */
final class FreeSpaceIndex {

  private final int n;
  private final int r;
  private final long[] othersOffer;
  private final long[] allocated;
  private final int[] jobCount;

  /** Per resource: eligible-for-others nodes by others' free amount, then index. */
  private final RankedNodes[] freeOrder;

  /**
   * A max segment tree over node indexes of others' free amount, per tree node the R resources at
   * {@code t * r + resource} (leaves at {@code leaves + node}; nodes not eligible for others' work
   * hold {@link Long#MIN_VALUE}).
   */
  private final long[] maxFree;

  private final int leaves;

  /**
   * Eligible-for-others nodes by number of admitted or running jobs, then index. Only jobs that
   * request nothing are placed by it, so a node whose job count changed is moved to its place only
   * when the order is next read ({@link #loadMoved}).
   */
  private final RankedNodes byJobCount;

  /** Nodes whose job count changed since the order by job count was last read, each once. */
  private final int[] loadMoved;

  private final boolean[] loadMovedNode;
  private int loadMovedCount;

  /** The eligible-for-others nodes, ascending, as built. */
  private int[] eligible;

  /**
   * Per resource: eligible-for-others nodes by others' offer, largest first (static; never changed,
   * so shared with the next pass when the offers stay the same).
   */
  private final int[][] byOfferDescending;

  /**
   * Per resource: the sum of others' offers of eligible nodes (saturating), for the dominant share.
   */
  private final long[] totalOthersOffer;

  /**
   * @param othersOffer, allocated per node and resource at {@code node * r + resource}, read (not
   *     copied): the owner calls {@link #update} after each change of {@code allocated}
   * @param jobCount per node, likewise
   */
  FreeSpaceIndex(int nodes, int r, long[] othersOffer, long[] allocated, int[] jobCount) {
    this.n = nodes;
    this.r = r;
    this.othersOffer = othersOffer;
    this.allocated = allocated;
    this.jobCount = jobCount;
    this.byJobCount = new RankedNodes(nodes);
    this.loadMoved = new int[nodes];
    this.loadMovedNode = new boolean[nodes];
    this.freeOrder = new RankedNodes[r];
    for (int res = 0; res < r; res++) {
      freeOrder[res] = new RankedNodes(nodes);
    }
    this.byOfferDescending = new int[r][];
    this.totalOthersOffer = new long[r];
    this.leaves = Integer.highestOneBit(Math.max(1, nodes) * 2 - 1); // the power of two >= n
    this.maxFree = new long[2 * leaves * r];
  }

  /**
   * Builds the indexes over the eligible nodes (ascending), once the existing allocation is
   * counted. When the last pass's orders as built ({@code last}, null for none) are over the same
   * eligible nodes, each order starts from them and moves only the nodes whose key changed since;
   * the orders by offer are taken as they are when every offer is the same too.
   */
  void build(int[] eligible, NodeOrders last) {
    boolean sameNodes = last != null && last.over(n, r, eligible);
    boolean sameOffers = sameNodes && Arrays.equals(last.othersOffer(), othersOffer);
    long[] key = new long[n];
    if (sameNodes) {
      byJobCount.copyFrom(last.byJobCount());
      for (int i : eligible) {
        byJobCount.update(i, jobCount[i]);
      }
    } else {
      for (int i : eligible) {
        key[i] = jobCount[i];
      }
      byJobCount.build(eligible, key);
    }
    int[] order = new int[eligible.length];
    long[] orderKeys = new long[eligible.length];
    Arrays.fill(maxFree, Long.MIN_VALUE);
    for (int res = 0; res < r; res++) {
      for (int i : eligible) {
        key[i] = free(i, res);
        maxFree[(leaves + i) * r + res] = key[i];
      }
      if (sameNodes) {
        freeOrder[res].copyFrom(last.freeOrder(res));
        for (int i : eligible) {
          freeOrder[res].update(i, key[i]);
        }
      } else {
        freeOrder[res].build(eligible, key);
      }
      if (sameOffers) {
        byOfferDescending[res] = last.byOfferDescending(res);
        totalOthersOffer[res] = last.totalOffer(res);
        continue;
      }
      for (int i : eligible) {
        key[i] = ~othersOffer[i * r + res]; // reverses the order of every long, without overflow
      }
      RankedNodes.inKeyOrder(eligible, key, order, orderKeys);
      byOfferDescending[res] = order.clone();
      long total = 0;
      for (int i : eligible) {
        total = QuantityMath.add(total, othersOffer[i * r + res]);
      }
      totalOthersOffer[res] = total;
    }
    for (int t = leaves - 1; t >= 1; t--) {
      for (int res = 0; res < r; res++) {
        maxFree[t * r + res] = Math.max(maxFree[2 * t * r + res], maxFree[(2 * t + 1) * r + res]);
      }
    }
    this.eligible = eligible;
  }

  /** The orders as they are now, for the next pass's {@link #build}: call before any change. */
  NodeOrders orders() {
    RankedNodes[] free = new RankedNodes[r];
    for (int res = 0; res < r; res++) {
      free[res] = freeOrder[res].copy();
    }
    return new NodeOrders(
        n,
        r,
        eligible,
        othersOffer.clone(),
        byJobCount.copy(),
        free,
        byOfferDescending.clone(),
        totalOthersOffer.clone());
  }

  private long free(int node, int resource) {
    return othersOffer[node * r + resource] - allocated[node * r + resource];
  }

  /** Whether some indexed node other than the two skipped ones has every request free now. */
  boolean anyFits(PreparedJob job, int skipA, int skipB) {
    return anyFits(1, job.resourceIds, job.quantities, skipA, skipB);
  }

  private boolean anyFits(int t, int[] ids, long[] quantities, int skipA, int skipB) {
    int base = t * r;
    for (int k = 0; k < ids.length; k++) {
      if (maxFree[base + ids[k]] < quantities[k]) {
        return false;
      }
    }
    if (t >= leaves) {
      int node = t - leaves;
      return node != skipA && node != skipB;
    }
    return anyFits(2 * t, ids, quantities, skipA, skipB)
        || anyFits(2 * t + 1, ids, quantities, skipA, skipB);
  }

  /**
   * The first position, in the order by free amount of the resource (see {@link #byFree}), of a
   * node with at least {@code quantity} free; {@link #size()} when none has.
   */
  int firstWithFreeAtLeast(int resource, long quantity) {
    return freeOrder[resource].firstAtLeast(quantity);
  }

  /** The indexed node at a position in the order by free amount of the resource, least first. */
  int byFree(int resource, int position) {
    return freeOrder[resource].nodeAt(position);
  }

  /** The indexed node at a position in the order by admitted or running jobs, fewest first. */
  int byLoad(int position) {
    for (int i = 0; i < loadMovedCount; i++) {
      int node = loadMoved[i];
      loadMovedNode[node] = false;
      byJobCount.update(node, jobCount[node]);
    }
    loadMovedCount = 0;
    return byJobCount.nodeAt(position);
  }

  /** How many nodes are indexed. */
  int size() {
    return byJobCount.size();
  }

  boolean contains(int node) {
    return byJobCount.contains(node);
  }

  /** The indexed nodes by others' offer of the resource, largest first. */
  int[] byOfferDescending(int resource) {
    return byOfferDescending[resource];
  }

  /** The sum of the indexed nodes' offers of the resource (saturating). */
  long totalOffer(int resource) {
    return totalOthersOffer[resource];
  }

  /** Follows a change of the node's job count and of its allocation of the job's resources. */
  void update(int node, PreparedJob job) {
    if (!loadMovedNode[node]) {
      loadMovedNode[node] = true;
      loadMoved[loadMovedCount++] = node;
    }
    for (int res : job.resourceIds) {
      long value = free(node, res);
      freeOrder[res].update(node, value);
      int t = leaves + node;
      maxFree[t * r + res] = value;
      for (t >>= 1; t >= 1; t >>= 1) {
        long max = Math.max(maxFree[2 * t * r + res], maxFree[(2 * t + 1) * r + res]);
        if (maxFree[t * r + res] == max) {
          break; // the maxima above are unchanged too
        }
        maxFree[t * r + res] = max;
      }
    }
  }
}
