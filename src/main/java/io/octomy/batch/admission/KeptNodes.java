package io.octomy.batch.admission;

import java.util.Arrays;
import java.util.List;

/**
 * Where a job goes beside the nodes a pass keeps for others: the node (or a gang's nodes) held for
 * the protected starving job ({@link StarvationGuard}) and the nodes kept for queues reclaiming
 * their min ({@link QueueMinimumHolds}). The rules ask it at the capacity check, and so does the
 * {@link GateInspector}, so both find the same place. It changes nothing.
 */
final class KeptNodes {

  private final PassState state;

  KeptNodes(PassState state) {
    this.state = state;
  }

  /**
   * Where the job goes now, or -1: a reclaiming queue's head to the node kept for it when it fits
   * there, otherwise the best fit off the node held for a starving job ({@code excluded}) and off
   * the nodes kept for queues reclaiming their min that it would take from ({@code minimums}).
   */
  int placeBeside(PreparedJob job, int excluded, List<QueueMinimumHolds.MinimumHold> minimums) {
    QueueMinimumHolds minimumHolds = state.minimumHolds();
    int kept = minimumHolds == null ? -1 : minimumHolds.keptFor(job);
    int[] starving = excluded < 0 ? null : state.guard().excludedNodesFor(job);
    if (kept >= 0
        && kept != excluded
        && (starving == null || !contains(starving, starving.length, kept))) {
      return kept;
    }
    Placement placement = state.placement();
    if (starving != null && starving.length > 1) {
      // A starving gang keeps several nodes: none of them, nor a queue's kept node, is taken.
      return placement.placeAvoiding(job, gangAvoids(job, minimums));
    }
    // The best fit off the starving job's node is the best fit off the kept nodes too when it is
    // none of them (the best of all is the best of fewer), and none fits when it finds none; only
    // a best fit on a kept node needs the slower look at every other node.
    int best = placement.place(job, excluded);
    if (best < 0 || minimums.isEmpty() || !keptFrom(minimums, best)) {
      return best;
    }
    int[] avoided = new int[minimums.size() + 1];
    int count = 0;
    if (excluded >= 0) {
      avoided[count++] = excluded;
    }
    for (QueueMinimumHolds.MinimumHold hold : minimums) {
      if (count == 0 || !contains(avoided, count, hold.node)) {
        avoided[count++] = hold.node;
      }
    }
    return placement.placeAvoiding(job, Arrays.copyOf(avoided, count));
  }

  /** Where a gang's replicas go now at its turn (as the rules find), or null. */
  int[] placeGang(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    return state.gangs().place(job, gangAvoids(job, minimums));
  }

  /** The nodes a gang may not take: those kept for the starving job and for queues' mins. */
  int[] gangAvoids(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    int[] starving = state.guard().excludedNodesFor(job);
    int[] kept = minimumNodes(minimums);
    int[] all = Arrays.copyOf(starving, starving.length + kept.length);
    System.arraycopy(kept, 0, all, starving.length, kept.length);
    return all;
  }

  static int[] minimumNodes(List<QueueMinimumHolds.MinimumHold> minimums) {
    int[] nodes = new int[minimums.size()];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = minimums.get(i).node;
    }
    return nodes;
  }

  /** Whether the job fits now on a node kept for the starving job. */
  boolean fitsAnyKeptForStarving(PreparedJob job) {
    for (int node : state.guard().excludedNodesFor(job)) {
      if (state.pool().fitsNow(node, job)) {
        return true;
      }
    }
    return false;
  }

  /** The first hold of a queue's min whose kept node the job fits now, or null. */
  QueueMinimumHolds.MinimumHold fitsKeptForMinimum(
      PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    for (QueueMinimumHolds.MinimumHold hold : minimums) {
      if (state.pool().fitsNow(hold.node, job)) {
        return hold;
      }
    }
    return null;
  }

  private static boolean keptFrom(List<QueueMinimumHolds.MinimumHold> minimums, int node) {
    for (QueueMinimumHolds.MinimumHold hold : minimums) {
      if (hold.node == node) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(int[] values, int count, int value) {
    for (int i = 0; i < count; i++) {
      if (values[i] == value) {
        return true;
      }
    }
    return false;
  }
}
