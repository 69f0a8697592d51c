package io.octomy.batch.admission;

import java.util.Arrays;

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
    size = members.length;
    inKeyOrder(members, keyOf, nodes, keys);
    for (int node : members) {
      this.keyOf[node] = keyOf[node];
      member[node] = true;
    }
  }

  /**
   * Writes {@code members} (distinct, ascending) into {@code order} in ascending order of {@code
   * keyOf[member]}, ties in member order, and each one's key alongside into {@code orderKeys}: the
   * keys are sorted as plain numbers, and each member then takes the next free place of its key's
   * run, found by binary search.
   */
  static void inKeyOrder(int[] members, long[] keyOf, int[] order, long[] orderKeys) {
    int m = members.length;
    long[] sorted = new long[m];
    for (int i = 0; i < m; i++) {
      sorted[i] = keyOf[members[i]];
    }
    Arrays.sort(sorted);
    int[] taken = new int[m];
    for (int node : members) {
      long key = keyOf[node];
      int low = 0;
      int high = m;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (sorted[mid] < key) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      int at = low + taken[low]++;
      order[at] = node;
      orderKeys[at] = key;
    }
  }

  /**
   * Makes this set the same as {@code other} (for the same node count): a pass starts from the
   * order the last pass built and moves only the nodes whose key changed since ({@link #update}),
   * which gives the same order as a build, the order (key, node index) being total.
   */
  void copyFrom(RankedNodes other) {
    size = other.size;
    System.arraycopy(other.nodes, 0, nodes, 0, nodes.length);
    System.arraycopy(other.keys, 0, keys, 0, keys.length);
    System.arraycopy(other.keyOf, 0, keyOf, 0, keyOf.length);
    System.arraycopy(other.member, 0, member, 0, member.length);
  }

  /** A copy of this set, which later changes of either leave alone. */
  RankedNodes copy() {
    RankedNodes copy = new RankedNodes(nodes.length);
    copy.copyFrom(this);
    return copy;
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
