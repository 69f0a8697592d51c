package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What each queue's admitted and running jobs hold together, a parent counting its whole subtree,
 * against each queue's max. Built from the holders of the snapshot and updated by every admission
 * of the pass (and every simulated end of a forecast), as the namespace budgets are: one pass never
 * takes a queue over its max.
 */
final class QueueLedger {

  private final QueueTree tree;
  private final ResourceIndex resources;

  /** Per queue: per resource id what its subtree's holders hold. */
  private final long[][] used;

  /** Per queue: per resource id its max, or -1 when its max does not list it; null without max. */
  private final long[][] max;

  QueueLedger(QueueTree tree, ResourceIndex resources) {
    this.tree = tree;
    this.resources = resources;
    int n = tree.size();
    used = new long[n][resources.count()];
    max = new long[n][];
    for (int q = 0; q < n; q++) {
      QueueView view = tree.view(q);
      if (view == null || view.max().isEmpty()) {
        continue;
      }
      long[] limits = new long[resources.count()];
      Arrays.fill(limits, -1);
      view.max()
          .forEach(
              (name, limit) -> {
                int id = resources.id(name);
                if (id >= 0) {
                  limits[id] = Math.max(0, limit);
                }
              });
      max[q] = limits;
    }
  }

  /** Counts a job's requests in its queue and every queue above it. */
  void hold(PreparedJob job) {
    for (int q : tree.chain(job.queue)) {
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        used[q][id] = QuantityMath.add(used[q][id], job.totals[k]);
      }
    }
  }

  /** Returns a finished job's requests (for simulated later passes). */
  void release(PreparedJob job) {
    for (int q : tree.chain(job.queue)) {
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        if (used[q][id] != Long.MAX_VALUE) {
          used[q][id] = Math.max(0, used[q][id] - job.totals[k]);
        }
      }
    }
  }

  /** What the queue's subtree holds of a resource now. */
  long used(int queue, int resource) {
    return used[queue][resource];
  }

  /** The queue's max of a resource, or -1 when it has none for it. */
  long max(int queue, int resource) {
    return max[queue] == null ? -1 : max[queue][resource];
  }

  /** True when the job, admitted now, keeps its queue and every queue above it within its max. */
  boolean fitsMax(PreparedJob job) {
    for (int q : tree.chain(job.queue)) {
      if (max[q] == null) {
        continue;
      }
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        long limit = max[q][id];
        if (limit >= 0 && QuantityMath.add(used[q][id], job.totals[k]) > limit) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The sentence parts for every request that would take a queue on the job's chain over its max,
   * nearest queue first; empty when it fits them all.
   */
  List<String> maxShortfalls(PreparedJob job) {
    List<String> parts = new ArrayList<>();
    for (int q : tree.chain(job.queue)) {
      if (max[q] == null) {
        continue;
      }
      String where =
          "queue " + tree.name(q) + (q == job.queue ? "" : " (above " + tree.name(job.queue) + ")");
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        long limit = max[q][id];
        long request = job.totals[k];
        if (limit < 0 || QuantityMath.add(used[q][id], request) <= limit) {
          continue;
        }
        String name = resources.name(id);
        parts.add(
            request > limit
                ? "need "
                    + request
                    + " "
                    + name
                    + ", more than the whole max of "
                    + limit
                    + " of "
                    + where
                : "need "
                    + request
                    + " "
                    + name
                    + ", "
                    + used[q][id]
                    + " already admitted or running in "
                    + where
                    + ", its max is "
                    + limit);
      }
    }
    return parts;
  }
}
