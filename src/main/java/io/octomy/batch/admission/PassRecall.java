package io.octomy.batch.admission;

import java.util.List;

/**
 * The memory of earlier passes as one pass uses it ({@link PassMemory}), and what it leaves for the
 * next: the readings of the views that have not changed, each view's place in the last order, the
 * node orders to mend, then this pass's readings and built node orders. A speed-up only: a pass
 * with an empty memory decides exactly the same.
 */
final class PassRecall {

  private final PassMemory memory;

  /** Per snapshot index: what an earlier pass read of the same view, or null. */
  private final JobReading[] kept;

  /** Per snapshot index: what this pass read of the job, for the next pass's memory. */
  private final JobReading[] readings;

  /** Per snapshot index: the view's place in the last pass's order, or -1. */
  private final int[] lastRanks;

  private final ResourceIndex resources;
  private final ScopeNumbers scopes;

  /** Whether the node orders as built are kept for the next pass ({@link #builtNodeOrders}). */
  private final boolean keepNodeOrders;

  private NodeOrders builtNodeOrders;

  PassRecall(Snapshot snapshot, PassMemory memory, boolean keepNodeOrders) {
    this.memory = memory;
    this.keepNodeOrders = keepNodeOrders;
    this.lastRanks = new int[snapshot.jobs().size()];
    this.kept = memory.readingsFor(snapshot, lastRanks);
    this.readings = new JobReading[kept.length];
    this.resources = memory.resourcesFor(snapshot, kept);
    this.scopes = memory.scopesFor(kept);
  }

  /** The resource numbers the readings go with. */
  ResourceIndex resources() {
    return resources;
  }

  /** The numbers of namespaces, groups and locks the readings go with. */
  ScopeNumbers scopes() {
    return scopes;
  }

  /** What is known of the snapshot's {@code index}-th view: the kept reading, or a new one. */
  JobReading read(int index, JobView view) {
    JobReading known = kept[index];
    JobReading reading = known != null ? known : new JobReading(view, resources, scopes);
    readings[index] = reading;
    return reading;
  }

  /** Indexes the pool's free space, mending the last pass's node orders when they fit. */
  void indexNodes(NodePool pool) {
    pool.index(memory.nodeOrders());
    if (keepNodeOrders) {
      builtNodeOrders = pool.freeSpace().orders();
    }
  }

  /** The Queued jobs with those the last pass ordered first in its order: a seed for the sort. */
  List<PreparedJob> inLastOrder(List<PreparedJob> queued) {
    return memory.inLastOrder(queued, lastRanks);
  }

  /** The memory for the next pass, once this one has ordered its Queued jobs. */
  PassMemory next(List<PreparedJob> queued, KeyIndex keys) {
    return PassMemory.of(resources, scopes, readings, queued, keys, builtNodeOrders);
  }
}
