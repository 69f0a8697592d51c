package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one admission pass leaves for the next, so that the next need not read every job afresh: the
 * resource names it numbered, what it read of each job ({@link JobReading}) keyed by the very
 * {@link JobView} object it read, and the order it decided the Queued jobs in.
 *
 * <p>A view is immutable, so the same object means the same job, spec and status: its reading is
 * taken as it is. A job whose view is a new object (created, edited, admitted, finished) is read
 * again, and one that is gone is forgotten. The readings hold resource ids, so they are kept only
 * while the snapshot names exactly the same resources (on nodes or in requests); otherwise every
 * job is read again. The last order only seeds the sort of the queue (a queue that barely changed
 * is sorted in about one comparison per job); the sorted order is the same whatever the seed.
 * Nothing that depends on the clock, the nodes or other jobs is kept, so a pass given a memory
 * decides exactly what a pass without one decides ({@code IncrementalPassPropertiesTest}).
 *
 * <p>Immutable: a pass builds a new memory and never changes the one it was given.
 */
public final class PassMemory {

  private static final PassMemory EMPTY = new PassMemory(null, Map.of(), 0);

  /** What was read of a view, and its place in the last pass's order (-1: it was not Queued). */
  record KeptReading(JobReading reading, int rank) {}

  private final ResourceIndex resources;
  private final Map<JobView, KeptReading> readings;
  private final int queuedCount;

  private PassMemory(ResourceIndex resources, Map<JobView, KeptReading> readings, int queuedCount) {
    this.resources = resources;
    this.readings = readings;
    this.queuedCount = queuedCount;
  }

  /** What a pass that read {@code jobs} with {@code resources} leaves, its queue in order. */
  static PassMemory of(ResourceIndex resources, List<PreparedJob> jobs, List<PreparedJob> queued) {
    int[] rank = new int[jobs.size()];
    Arrays.fill(rank, -1);
    for (int r = 0; r < queued.size(); r++) {
      rank[queued.get(r).index] = r;
    }
    Map<JobView, KeptReading> readings = new IdentityHashMap<>(jobs.size());
    for (PreparedJob job : jobs) {
      readings.put(job.view, new KeptReading(job.reading, rank[job.index]));
    }
    return new PassMemory(resources, readings, queued.size());
  }

  /** No memory: the pass reads every job. */
  public static PassMemory empty() {
    return EMPTY;
  }

  /** How many jobs' readings are kept. */
  public int size() {
    return readings.size();
  }

  /**
   * The kept readings of the snapshot's jobs by snapshot index (null where the view was not read
   * last time), or all null when the snapshot does not name exactly the resources they were read
   * with; then {@link #resourcesFor} gives a new index.
   */
  KeptReading[] readingsFor(Snapshot snapshot) {
    List<JobView> jobs = snapshot.jobs();
    KeptReading[] kept = new KeptReading[jobs.size()];
    if (readings.isEmpty() || !sameNames(snapshot, jobs, kept)) {
      return new KeptReading[jobs.size()];
    }
    return kept;
  }

  /** The index the readings of {@link #readingsFor} go with. */
  ResourceIndex resourcesFor(Snapshot snapshot, KeptReading[] kept) {
    for (KeptReading reading : kept) {
      if (reading != null) {
        return resources;
      }
    }
    return new ResourceIndex(snapshot);
  }

  /**
   * The Queued jobs of this pass, those the last pass decided first in its order, the others after
   * them; {@code queued} itself when there is no last order.
   */
  List<PreparedJob> inLastOrder(List<PreparedJob> queued, KeptReading[] kept) {
    if (queuedCount == 0) {
      return queued;
    }
    PreparedJob[] byRank = new PreparedJob[queuedCount];
    List<PreparedJob> others = new ArrayList<>();
    for (PreparedJob job : queued) {
      KeptReading k = kept[job.index];
      if (k != null && k.rank() >= 0) {
        byRank[k.rank()] = job;
      } else {
        others.add(job);
      }
    }
    List<PreparedJob> seeded = new ArrayList<>(queued.size());
    for (PreparedJob job : byRank) {
      if (job != null) {
        seeded.add(job);
      }
    }
    seeded.addAll(others);
    return seeded;
  }

  /**
   * Fills {@code kept} and tells whether the snapshot names exactly the resources of the kept
   * index: every node capacity and requested name known to it, and every name of it still named.
   */
  private boolean sameNames(Snapshot snapshot, List<JobView> jobs, KeptReading[] kept) {
    boolean[] named = new boolean[resources.count()];
    for (NodeView node : snapshot.nodes()) {
      for (String name : node.capacity().keySet()) {
        if (!mark(named, name)) {
          return false;
        }
      }
    }
    for (int i = 0; i < kept.length; i++) {
      JobView view = jobs.get(i);
      KeptReading reading = readings.get(view);
      if (reading != null) {
        kept[i] = reading;
        for (int id : reading.reading().requestedNames) {
          named[id] = true;
        }
      } else {
        for (String name : view.requests().keySet()) {
          if (!mark(named, name)) {
            return false;
          }
        }
      }
    }
    for (boolean n : named) {
      if (!n) {
        return false;
      }
    }
    return true;
  }

  private boolean mark(boolean[] named, String name) {
    int id = resources.id(name);
    if (id < 0) {
      return false;
    }
    named[id] = true;
    return true;
  }

  /** What was read of the view, or null; for tests. */
  JobReading readingOf(JobView view) {
    KeptReading k = readings.get(view);
    return k == null ? null : k.reading();
  }
}
