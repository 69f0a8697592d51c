package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;

/**
 * The placement indexes over the nodes that take others' work (ready, mode not Off), kept in step
 * with the allocation {@link NodePool} owns.
 *
 * <p>Each resource has a {@link TreeSet} of those nodes ordered by free amount (others' offer minus
 * allocation) then index, and a max segment tree of the same free amounts. "Does any node fit?" is
 * asked of the trees (pruning every subtree where some request exceeds the largest free amount);
 * the best fit is found by walking a set upwards from the request. A change of a node's allocation
 * takes it out of its sets ({@link #remove}) and puts it back once the numbers changed ({@link
 * #add}), O(R log N).
 */
final class FreeSpaceIndex {

  /** Index used as a search key in the free-order sets: it compares as {@link #probeFree}. */
  private static final int PROBE = -1;

  private final int r;
  private final long[] othersOffer;
  private final long[] allocated;
  private final int[] jobCount;

  /** Per resource: eligible-for-others nodes by others' free amount, then index. */
  private final List<TreeSet<Integer>> freeOrder = new ArrayList<>();

  /**
   * Per resource: a max segment tree over node indexes of others' free amount (leaves at {@code
   * leaves + node}; nodes not eligible for others' work hold {@link Long#MIN_VALUE}).
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
   * @param othersOffer, allocated per node and resource at {@code node * r + resource}, read (not
   *     copied): the owner changes {@code allocated} only between {@link #remove} and {@link #add}
   * @param jobCount per node, likewise
   */
  FreeSpaceIndex(int nodes, int r, long[] othersOffer, long[] allocated, int[] jobCount) {
    this.r = r;
    this.othersOffer = othersOffer;
    this.allocated = allocated;
    this.jobCount = jobCount;
    this.byJobCount =
        new TreeSet<>(
            (a, b) -> {
              int c = Integer.compare(jobCount[a], jobCount[b]);
              return c != 0 ? c : Integer.compare(a, b);
            });
    this.byOfferDescending = new int[r][];
    this.totalOthersOffer = new long[r];
    this.leaves = Integer.highestOneBit(Math.max(1, nodes) * 2 - 1); // the power of two >= n
    this.maxFree = new long[r][2 * leaves];
  }

  /** Builds the indexes over the eligible nodes, once the existing allocation is counted. */
  void build(List<Integer> eligible) {
    byJobCount.addAll(eligible);
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

  private long free(int node, int resource) {
    if (node == PROBE) {
      return probeFree;
    }
    return othersOffer[node * r + resource] - allocated[node * r + resource];
  }

  /** Whether some indexed node other than the two skipped ones has every request free now. */
  boolean anyFits(PreparedJob job, int skipA, int skipB) {
    return anyFits(1, job, skipA, skipB);
  }

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

  /** The indexed nodes with at least {@code quantity} free of the resource, least free first. */
  Iterable<Integer> withFreeAtLeast(int resource, long quantity) {
    probeFree = quantity;
    return freeOrder.get(resource).tailSet(PROBE, true);
  }

  /** The indexed nodes, most free of the resource first. */
  Iterator<Integer> mostFreeFirst(int resource) {
    return freeOrder.get(resource).descendingIterator();
  }

  /** The indexed nodes, fewest admitted or running jobs first. */
  Iterable<Integer> leastLoadedFirst() {
    return byJobCount;
  }

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

  /** Takes an indexed node out before its job count or the job's resources change on it. */
  void remove(int node, PreparedJob job) {
    byJobCount.remove(node);
    for (int res : job.resourceIds) {
      freeOrder.get(res).remove(node);
    }
  }

  /** Puts the node back once they changed. */
  void add(int node, PreparedJob job) {
    byJobCount.add(node);
    for (int res : job.resourceIds) {
      freeOrder.get(res).add(node);
      long[] tree = maxFree[res];
      int t = leaves + node;
      tree[t] = free(node, res);
      for (t >>= 1; t >= 1; t >>= 1) {
        tree[t] = Math.max(tree[2 * t], tree[2 * t + 1]);
      }
    }
  }
}
