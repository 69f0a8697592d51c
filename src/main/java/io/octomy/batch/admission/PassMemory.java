package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import java.util.ArrayList;
import java.util.Collections;
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

  private static final PassMemory EMPTY = new PassMemory(null, Map.of(), List.of());

  private final ResourceIndex resources;
  private final Map<JobView, JobReading> readings;
  private final List<JobKey> order;

  /**
   * @param readings keyed by identity; not copied, so the caller hands it over
   */
  PassMemory(ResourceIndex resources, Map<JobView, JobReading> readings, List<JobKey> order) {
    this.resources = resources;
    this.readings = readings;
    this.order = order;
  }

  /** No memory: the pass reads every job. */
  public static PassMemory empty() {
    return EMPTY;
  }

  /** How many jobs' readings are kept. */
  public int size() {
    return readings.size();
  }

  /** A map for the next memory's readings, keyed by identity. */
  static Map<JobView, JobReading> newReadings(int expected) {
    return new IdentityHashMap<>(expected);
  }

  /**
   * The kept readings of the snapshot's jobs by snapshot index (null where the view was not read
   * last time), or all null when the snapshot does not name exactly the resources they were read
   * with; then {@link #resourcesFor} gives a new index.
   */
  JobReading[] readingsFor(Snapshot snapshot) {
    List<JobView> jobs = snapshot.jobs();
    JobReading[] kept = new JobReading[jobs.size()];
    if (readings.isEmpty() || !sameNames(snapshot, jobs, kept)) {
      return new JobReading[jobs.size()];
    }
    return kept;
  }

  /** The index the readings of {@link #readingsFor} go with. */
  ResourceIndex resourcesFor(Snapshot snapshot, JobReading[] kept) {
    for (JobReading reading : kept) {
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
  List<PreparedJob> inLastOrder(
      List<PreparedJob> queued, List<PreparedJob> jobs, Map<JobKey, Integer> indexByKey) {
    if (order.isEmpty()) {
      return queued;
    }
    List<PreparedJob> seeded = new ArrayList<>(queued.size());
    boolean[] placed = new boolean[jobs.size()];
    for (JobKey key : order) {
      Integer i = indexByKey.get(key);
      if (i != null && jobs.get(i).view.phase() == JobPhase.Queued) {
        placed[i] = true;
        seeded.add(jobs.get(i));
      }
    }
    for (PreparedJob job : queued) {
      if (!placed[job.index]) {
        seeded.add(job);
      }
    }
    return seeded;
  }

  /**
   * Fills {@code kept} and tells whether the snapshot names exactly the resources of the kept
   * index: every node capacity and requested name known to it, and every name of it still named.
   */
  private boolean sameNames(Snapshot snapshot, List<JobView> jobs, JobReading[] kept) {
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
      JobReading reading = readings.get(view);
      if (reading != null) {
        kept[i] = reading;
        for (int id : reading.requestedNames) {
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

  /** The readings as the pass that made this memory left them, for tests. */
  Map<JobView, JobReading> readings() {
    return Collections.unmodifiableMap(readings);
  }
}
