package io.octomy.batch.admission;

import java.util.Arrays;
import java.util.Comparator;

/**
 * A set of node indexes in ascending order of a {@code long} key, ties by node index, kept in two
 * flat arrays (no boxing, no tree nodes to chase).
 *
 * <p>A node whose key changes moves to its new place by shifting only the nodes between its old and
 * new place, as one step of insertion sort: an admission changes a node's free amount by one job's
 * request, so it passes the nodes whose free amount lies in between, usually few of the whole set.
 * Positions are kept per node, so a move needs no search for where the node is now.
 */
final class RankedNodes {

  private final int[] nodes;
  private final long[] keys;

  /** Per node index: its position in {@link #nodes}, or -1 when it is not in the set. */
  private final int[] positionOf;

  private int size;

  /** An empty set for node indexes below {@code nodeCount}. */
  RankedNodes(int nodeCount) {
    nodes = new int[nodeCount];
    keys = new long[nodeCount];
    positionOf = new int[nodeCount];
    Arrays.fill(positionOf, -1);
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
      positionOf[node] = p;
    }
  }

  int size() {
    return size;
  }

  boolean contains(int node) {
    return positionOf[node] >= 0;
  }

  /** The node at a position, 0 being the smallest key. */
  int nodeAt(int position) {
    return nodes[position];
  }

  /** The first position whose key is at least {@code key}; {@link #size()} when none is. */
  int firstAtLeast(long key) {
    int low = 0;
    int high = size;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (keys[mid] < key) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** Gives a member node a new key and moves it to its place. */
  void update(int node, long key) {
    int p = positionOf[node];
    while (p > 0 && before(key, node, keys[p - 1], nodes[p - 1])) {
      shift(p - 1, p);
      p--;
    }
    while (p < size - 1 && before(keys[p + 1], nodes[p + 1], key, node)) {
      shift(p + 1, p);
      p++;
    }
    nodes[p] = node;
    keys[p] = key;
    positionOf[node] = p;
  }

  private void shift(int from, int to) {
    int moved = nodes[from];
    nodes[to] = moved;
    keys[to] = keys[from];
    positionOf[moved] = to;
  }

  private static boolean before(long keyA, int nodeA, long keyB, int nodeB) {
    return keyA < keyB || (keyA == keyB && nodeA < nodeB);
  }
}
