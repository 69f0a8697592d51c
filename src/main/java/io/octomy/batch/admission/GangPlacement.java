package io.octomy.batch.admission;

import java.util.Arrays;

/**
 * Where the replicas of a gang go in one pass, over the {@link NodePool}: all of them at once, on
 * one or several nodes (several replicas may share a node), or none. Each replica is placed by the
 * rule a single job is placed by, as if the replicas before it were already reserved: the origin
 * node while it has room (with ownMode's offer), then best fit, the node with the least free amount
 * of the dominant resource that still holds a copy, filled before the next; a gang that requests
 * nothing goes replica by replica to the node with the fewest jobs. Nothing is reserved here, and
 * no memo of {@link Placement} is read or written: they know single copies only.
 */
final class GangPlacement {

  private final NodePool pool;
  private final Placement placement;

  GangPlacement(NodePool pool, Placement placement) {
    this.pool = pool;
    this.placement = placement;
  }

  /**
   * The node index of each replica in replica order, or null when the ready nodes, but those in
   * {@code avoided} (kept for a starving job or a queue's min), have no room for every replica now.
   */
  int[] place(PreparedJob job, int[] avoided) {
    int n = job.replicas;
    int[] nodes = new int[n];
    int placed = 0;
    int origin = job.origin;
    if (origin >= 0 && !contains(avoided, origin) && !busyForDeferrable(origin, job)) {
      placed = fill(nodes, placed, origin, copiesNow(origin, job));
    }
    if (placed < n && job.requestsNothing()) {
      return byLoad(job, avoided, nodes, placed);
    }
    if (placed < n) {
      for (int node : bestFitOrder(job, avoided)) {
        placed = fill(nodes, placed, node, copiesNow(node, job));
        if (placed == n) {
          break;
        }
      }
    }
    return placed == n ? nodes : null;
  }

  /** The others' nodes by free amount of the dominant resource, least first, ties by index. */
  private Integer[] bestFitOrder(PreparedJob job, int[] avoided) {
    int resource = job.resourceIds[placement.dominant(job)];
    Integer[] order = new Integer[pool.size()];
    int count = 0;
    for (int node = 0; node < pool.size(); node++) {
      if (node != job.origin
          && !contains(avoided, node)
          && job.mayUse(node)
          && pool.takesOthersWork(node)) {
        order[count++] = node;
      }
    }
    Integer[] found = Arrays.copyOf(order, count);
    Arrays.sort(
        found,
        (a, b) -> {
          int c = Long.compare(pool.othersFree(a, resource), pool.othersFree(b, resource));
          return c != 0 ? c : Integer.compare(a, b);
        });
    return found;
  }

  /** Replicas that request nothing, one by one to the least loaded node (ties by index). */
  private int[] byLoad(PreparedJob job, int[] avoided, int[] nodes, int placed) {
    int[] tentative = new int[pool.size()];
    for (int i = 0; i < placed; i++) {
      tentative[nodes[i]]++;
    }
    for (; placed < nodes.length; placed++) {
      int best = -1;
      for (int node = 0; node < pool.size(); node++) {
        if (node == job.origin
            || contains(avoided, node)
            || !job.mayUse(node)
            || !pool.takesOthersWork(node)
            || busyForDeferrable(node, job)) {
          continue;
        }
        if (best < 0
            || pool.jobCount(node) + tentative[node] < pool.jobCount(best) + tentative[best]) {
          best = node;
        }
      }
      if (best < 0) {
        return null;
      }
      nodes[placed] = best;
      tentative[best]++;
    }
    return nodes;
  }

  private static int fill(int[] nodes, int placed, int node, long copies) {
    while (copies-- > 0 && placed < nodes.length) {
      nodes[placed++] = node;
    }
    return placed;
  }

  private boolean busyForDeferrable(int node, PreparedJob job) {
    return job.deferrable && pool.busyResourceFor(node, job) >= 0;
  }

  /** How many copies of the job's requests fit the node's free share now (at most its replicas). */
  long copiesNow(int node, PreparedJob job) {
    if (!pool.eligible(node, job)) {
      return 0;
    }
    long copies = job.replicas;
    for (int k = 0; k < job.resourceIds.length && copies > 0; k++) {
      long free = pool.freeFor(node, job, job.resourceIds[k]);
      copies = Math.min(copies, Math.max(0, free) / job.quantities[k]);
    }
    return copies;
  }

  /** How many copies of the job's requests the node's full offer holds (at most its replicas). */
  long copiesInFullOffer(int node, PreparedJob job) {
    if (!pool.eligible(node, job)) {
      return 0;
    }
    long copies = job.replicas;
    for (int k = 0; k < job.resourceIds.length && copies > 0; k++) {
      copies = Math.min(copies, pool.offerFor(node, job, job.resourceIds[k]) / job.quantities[k]);
    }
    return copies;
  }

  /** Copies the ready nodes it may use could ever hold together, counted up to its replicas. */
  long copiesEver(PreparedJob job) {
    long total = 0;
    for (int node = 0; node < pool.size() && total < job.replicas; node++) {
      total += copiesInFullOffer(node, job);
    }
    return Math.min(total, job.replicas);
  }

  /** Copies the nodes it may use have room for now together, counted up to its replicas. */
  long copiesNow(PreparedJob job) {
    long total = 0;
    for (int node = 0; node < pool.size() && total < job.replicas; node++) {
      total += copiesNow(node, job);
    }
    return Math.min(total, job.replicas);
  }

  /** Whether every replica could fit at once, were the nodes empty: not NoNodeFits. */
  boolean fitsWholeSomeday(PreparedJob job) {
    return copiesEver(job) >= job.replicas;
  }

  /**
   * The nodes where a waiting gang would fit soonest, kept for it while it starves: nodes whose
   * full offer holds a copy, by the single job's rule (smallest largest shortfall of one more copy,
   * ties by index), taken until their full offers hold every replica. Empty when they never can.
   */
  int[] soonest(PreparedJob job) {
    Integer[] order = new Integer[pool.size()];
    int count = 0;
    for (int node = 0; node < pool.size(); node++) {
      if (copiesInFullOffer(node, job) > 0) {
        order[count++] = node;
      }
    }
    Integer[] found = Arrays.copyOf(order, count);
    Arrays.sort(
        found,
        (a, b) -> {
          long[] ka = placement.shortfallShare(a, job);
          long[] kb = placement.shortfallShare(b, job);
          int c = QuantityMath.compareFractions(ka[0], ka[1], kb[0], kb[1]);
          return c != 0 ? c : Integer.compare(a, b);
        });
    int[] kept = new int[found.length];
    long covered = 0;
    int used = 0;
    for (int node : found) {
      if (covered >= job.replicas) {
        break;
      }
      kept[used++] = node;
      covered += copiesInFullOffer(node, job);
    }
    return covered >= job.replicas ? Arrays.copyOf(kept, used) : new int[0];
  }

  private static boolean contains(int[] nodes, int node) {
    for (int n : nodes) {
      if (n == node) {
        return true;
      }
    }
    return false;
  }
}
