package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one admission pass leaves for the next, so that the next need not read every job afresh: the
 * resource names it numbered, the namespaces, groups and locks it numbered ({@link ScopeNumbers}),
 * what it read of each job ({@link JobReading}) with the very {@link JobView} object it read, and
 * the order it decided the Queued jobs in.
 *
 * <p>A view is immutable, so the same object means the same job, spec and status: its reading is
 * taken as it is. A job whose view is a new object (created, edited, admitted, finished) is read
 * again, and one that is gone is forgotten. The readings hold resource ids, so they are kept only
 * while the snapshot names exactly the same resources (on nodes or in requests); otherwise every
 * job is read again. They hold the numbers of their namespace, group and locks too, kept until the
 * numbers far outnumber what the jobs name ({@link ScopeNumbers#outgrown}). The last order only
 * seeds the sort of the queue (a queue that barely changed is sorted in about one comparison per
 * job); the sorted order is the same whatever the seed. The node orders the last pass built are
 * mended rather than sorted again ({@link #nodeOrders}). Nothing that depends on the clock, the
 * nodes or other jobs is kept, so a pass given a memory decides exactly what a pass without one
 * decides ({@code IncrementalPassPropertiesTest}).
 *
 * <p>A view is found where the last snapshot listed it: the next snapshot usually lists the same
 * views in the same order but for a few inserted or removed, so each view is first looked for at
 * its index shifted as much as the view before it was, and only then by its key in the last pass's
 * {@link KeyIndex}. Either way it is taken only when it is the same object.
 *
 * <p>A pass builds a new memory and never changes the one it was given, but for numbering the names
 * of the jobs it reads afresh in the {@link ScopeNumbers} they share, which only ever adds numbers.
 */
public final class PassMemory {

  private static final PassMemory EMPTY =
      new PassMemory(
          null,
          null,
          new JobView[0],
          new JobReading[0],
          null,
          new int[0],
          new KeyIndex(0),
          0,
          null);

  private final ResourceIndex resources;

  /** The numbers of namespaces, groups and locks that the readings hold. */
  private final ScopeNumbers scopes;

  /** The views the last pass read, by their index in the last snapshot. */
  private final JobView[] views;

  /** What the last pass read of each of them, by the same index. */
  private final JobReading[] readings;

  /**
   * By the same index: the ids of the resource names the job's requests name, as bits; null when
   * the index has more than 64 names, and then they are read from the readings.
   */
  private final long[] namedBits;

  /** By the same index: the job's place in the last pass's order, -1 when it was not Queued. */
  private final int[] ranks;

  /** The last snapshot's keys to its indexes. */
  private final KeyIndex keys;

  private final int queuedCount;

  /** The last pass's node orders as built, or null. */
  private final NodeOrders nodeOrders;

  private PassMemory(
      ResourceIndex resources,
      ScopeNumbers scopes,
      JobView[] views,
      JobReading[] readings,
      long[] namedBits,
      int[] ranks,
      KeyIndex keys,
      int queuedCount,
      NodeOrders nodeOrders) {
    this.resources = resources;
    this.scopes = scopes;
    this.views = views;
    this.readings = readings;
    this.namedBits = namedBits;
    this.ranks = ranks;
    this.keys = keys;
    this.queuedCount = queuedCount;
    this.nodeOrders = nodeOrders;
  }

  /**
   * What a pass that read {@code readings} (by snapshot index, no longer changed) with {@code
   * resources} leaves, its queue in order; {@code keys} maps their keys to their indexes and is no
   * longer changed either, and {@code nodeOrders} are its node orders as built.
   */
  static PassMemory of(
      ResourceIndex resources,
      ScopeNumbers scopes,
      JobReading[] readings,
      List<PreparedJob> queued,
      KeyIndex keys,
      NodeOrders nodeOrders) {
    JobView[] views = new JobView[readings.length];
    long[] namedBits = resources.count() <= Long.SIZE ? new long[readings.length] : null;
    for (int i = 0; i < readings.length; i++) {
      views[i] = readings[i].view;
      if (namedBits != null) {
        namedBits[i] = readings[i].requestedNameBits;
      }
    }
    int[] rank = new int[readings.length];
    Arrays.fill(rank, -1);
    for (int r = 0; r < queued.size(); r++) {
      rank[queued.get(r).index] = r;
    }
    return new PassMemory(
        resources, scopes, views, readings, namedBits, rank, keys, queued.size(), nodeOrders);
  }

  /**
   * The last pass's node orders as built, or null. They hold node indexes and resource ids, and are
   * used only over the same eligible nodes of a pool of the same shape ({@link NodeOrders#over});
   * each order is then mended to this pass's keys, and the orders by offer are taken only when
   * every offer is the same, so what the pass builds is the same as without them.
   */
  NodeOrders nodeOrders() {
    return nodeOrders;
  }

  /** No memory: the pass reads every job. */
  public static PassMemory empty() {
    return EMPTY;
  }

  /** How many jobs' readings are kept. */
  public int size() {
    return readings.length;
  }

  /**
   * The kept readings of the snapshot's jobs by snapshot index (null where the view was not read
   * last time), with each one's place in the last order in {@code lastRanks} (-1 where none); all
   * null when the snapshot does not name exactly the resources they were read with, and then {@link
   * #resourcesFor} gives a new index.
   */
  JobReading[] readingsFor(Snapshot snapshot, int[] lastRanks) {
    List<JobView> jobs = snapshot.jobs();
    JobReading[] kept = new JobReading[jobs.size()];
    Arrays.fill(lastRanks, -1);
    if (readings.length == 0
        || scopes.outgrown(jobs.size())
        || !sameNames(snapshot, jobs, kept, lastRanks)) {
      Arrays.fill(lastRanks, -1);
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

  /** The numbers the readings of {@link #readingsFor} go with. */
  ScopeNumbers scopesFor(JobReading[] kept) {
    for (JobReading reading : kept) {
      if (reading != null) {
        return scopes;
      }
    }
    return new ScopeNumbers();
  }

  /**
   * The Queued jobs of this pass, those the last pass decided first in its order, the others after
   * them; {@code queued} itself when there is no last order.
   */
  List<PreparedJob> inLastOrder(List<PreparedJob> queued, int[] lastRanks) {
    if (queuedCount == 0) {
      return queued;
    }
    PreparedJob[] byRank = new PreparedJob[queuedCount];
    List<PreparedJob> others = new ArrayList<>();
    for (PreparedJob job : queued) {
      int rank = lastRanks[job.index];
      if (rank >= 0) {
        byRank[rank] = job;
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
   * Fills {@code kept} and {@code lastRanks} and tells whether the snapshot names exactly the
   * resources of the kept index: every node capacity and requested name known to it, and every name
   * of it still named.
   */
  private boolean sameNames(
      Snapshot snapshot, List<JobView> jobs, JobReading[] kept, int[] lastRanks) {
    boolean[] named = new boolean[resources.count()];
    long keptNames = 0;
    for (NodeView node : snapshot.nodes()) {
      for (String name : node.capacity().keySet()) {
        if (!mark(named, name)) {
          return false;
        }
      }
    }
    int shift = 0;
    for (int i = 0; i < kept.length; i++) {
      JobView view = jobs.get(i);
      int last = i + shift;
      if (last < 0 || last >= views.length || views[last] != view) {
        last = lastIndexOf(view);
        if (last >= 0) {
          shift = last - i;
        }
      }
      if (last >= 0) {
        kept[i] = readings[last];
        lastRanks[i] = ranks[last];
        if (namedBits != null) {
          keptNames |= namedBits[last];
        } else {
          for (int id : readings[last].requestedNames) {
            named[id] = true;
          }
        }
      } else {
        for (String name : view.requests().keySet()) {
          if (!mark(named, name)) {
            return false;
          }
        }
      }
    }
    for (int id = 0; id < named.length; id++) {
      if (!named[id] && (keptNames & (1L << id)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** The view's index in the last snapshot, or -1 when the last pass did not read this object. */
  private int lastIndexOf(JobView view) {
    int last = keys.get(view.key());
    return last >= 0 && views[last] == view ? last : -1;
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
    int last = lastIndexOf(view);
    return last < 0 ? null : readings[last];
  }
}
