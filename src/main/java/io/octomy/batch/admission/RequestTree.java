package io.octomy.batch.admission;

import java.util.Arrays;

/**
 * Parked jobs at fixed positions, with a min segment tree of their requests per resource, so "the
 * first parked job whose every request fits these amounts" is answered by one descent that skips
 * every subtree where some resource's smallest request is already too big. The forecast keeps one
 * per service class (positions in the class's fixed order), for jobs waiting for capacity and, per
 * namespace, for jobs waiting for budget.
 *
 * <p>A resource a job does not request counts as a request of 0, which fits anything; an empty
 * position holds {@link Long#MAX_VALUE} everywhere, which fits nothing.
 */
final class RequestTree {

  private final int r;
  private final int leaves;

  /** mins[t * r + res]: the smallest request of res among parked jobs under tree node t. */
  private final long[] mins;

  private final PreparedJob[] parked;
  private int size;

  RequestTree(int positions, int resources) {
    this.r = resources;
    this.leaves = Integer.highestOneBit(Math.max(1, positions) * 2 - 1);
    this.mins = new long[2 * leaves * r];
    Arrays.fill(mins, Long.MAX_VALUE);
    this.parked = new PreparedJob[leaves];
  }

  boolean isEmpty() {
    return size == 0;
  }

  void park(int position, PreparedJob job) {
    if (parked[position] == null) {
      size++;
    }
    parked[position] = job;
    int base = (leaves + position) * r;
    Arrays.fill(mins, base, base + r, 0);
    for (int k = 0; k < job.resourceIds.length; k++) {
      mins[base + job.resourceIds[k]] = job.quantities[k];
    }
    update(leaves + position);
  }

  void unpark(int position) {
    if (parked[position] == null) {
      return;
    }
    parked[position] = null;
    size--;
    int base = (leaves + position) * r;
    Arrays.fill(mins, base, base + r, Long.MAX_VALUE);
    update(leaves + position);
  }

  /** Brings the minimums above leaf {@code t} up to date, up to the first that did not change. */
  private void update(int t) {
    for (t >>= 1; t >= 1; t >>= 1) {
      int at = t * r;
      int left = 2 * t * r;
      int right = (2 * t + 1) * r;
      boolean changed = false;
      for (int res = 0; res < r; res++) {
        long min = Math.min(mins[left + res], mins[right + res]);
        if (mins[at + res] != min) {
          mins[at + res] = min;
          changed = true;
        }
      }
      if (!changed) {
        return; // every node above takes its minimums from this one as it was
      }
    }
  }

  /**
   * The parked job at the lowest position whose every request is at most {@code room[resource]}
   * (amounts below 0 count as 0; {@link Long#MAX_VALUE} means no bound), or null.
   */
  PreparedJob first(long[] room) {
    if (size == 0) {
      return null;
    }
    long[] bound = new long[r];
    for (int res = 0; res < r; res++) {
      // An empty position holds MAX_VALUE: even an unbounded room must not match it.
      bound[res] = Math.min(Long.MAX_VALUE - 1, Math.max(0, room[res]));
    }
    int t = find(1, bound);
    return t < 0 ? null : parked[t - leaves];
  }

  private int find(int t, long[] bound) {
    int at = t * r;
    for (int res = 0; res < r; res++) {
      if (mins[at + res] > bound[res]) {
        return -1;
      }
    }
    if (t >= leaves) {
      return t;
    }
    int left = find(2 * t, bound);
    return left >= 0 ? left : find(2 * t + 1, bound);
  }
}
