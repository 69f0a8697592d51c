package io.octomy.batch.admission;

import java.util.Arrays;
import java.util.Comparator;

/**
 * A set of node indexes in ascending order of a {@code long} key, ties by node index, kept in two
 * flat arrays (no boxing, no tree nodes to chase).
 *
 * <p>A node whose key changes moves to its new place in one block move of the nodes between its old
 * and new place: an admission or an end changes a node's key by one job's request, yet it can pass
 * hundreds of nodes with equal or nearby keys (many nodes share a free amount, or a job count).
 * Both places are found by binary search on (key, node index), with each member's key kept per
 * node, so no per-node position has to be rewritten as others move.
 */
final class RankedNodes {

  private final int[] nodes;
  private final long[] keys;

  /** Per node index: its key while it is a member. */
  private final long[] keyOf;

  private final boolean[] member;

  private int size;

  /** An empty set for node indexes below {@code nodeCount}. */
  RankedNodes(int nodeCount) {
    nodes = new int[nodeCount];
    keys = new long[nodeCount];
    keyOf = new long[nodeCount];
    member = new boolean[nodeCount];
  }

  /**
   * Fills the set with {@code members} (distinct node indexes, ascending), each with {@code
   * keyOf[member]}.
   */
  void build(int[] members, long[] keyOf) {
    Integer[] order = new Integer[members.length];
    for (int i = 0; i < members.length; i++) {
      order[i] = members[i];
    }
    // Stable, and the members come ascending: ties stay in node order.
    Arrays.sort(order, Comparator.comparingLong(node -> keyOf[node]));
    size = members.length;
    for (int p = 0; p < size; p++) {
      int node = order[p];
      nodes[p] = node;
      keys[p] = keyOf[node];
      this.keyOf[node] = keyOf[node];
      member[node] = true;
    }
  }

  int size() {
    return size;
  }

  boolean contains(int node) {
    return member[node];
  }

  /** The node at a position, 0 being the smallest key. */
  int nodeAt(int position) {
    return nodes[position];
  }

  /** The first position whose key is at least {@code key}; {@link #size()} when none is. */
  int firstAtLeast(long key) {
    return firstNotBefore(key, Integer.MIN_VALUE);
  }

  /** The first position whose (key, node) is not before the given pair; size when none is. */
  private int firstNotBefore(long key, int node) {
    int low = 0;
    int high = size;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (before(keys[mid], nodes[mid], key, node)) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** Gives a member node a new key and moves it to its place. */
  void update(int node, long key) {
    long old = keyOf[node];
    if (old == key) {
      return;
    }
    int from = firstNotBefore(old, node);
    int to;
    if (key > old) {
      // Every node before (key, node) moves down one, itself (at from) included.
      to = firstNotBefore(key, node) - 1;
      System.arraycopy(nodes, from + 1, nodes, from, to - from);
      System.arraycopy(keys, from + 1, keys, from, to - from);
    } else {
      to = firstNotBefore(key, node);
      System.arraycopy(nodes, to, nodes, to + 1, from - to);
      System.arraycopy(keys, to, keys, to + 1, from - to);
    }
    nodes[to] = node;
    keys[to] = key;
    keyOf[node] = key;
  }

  private static boolean before(long keyA, int nodeA, long keyB, int nodeB) {
    return keyA < keyB || (keyA == keyB && nodeA < nodeB);
  }
}
