package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ServiceClass;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * A job as one pass works on it: what its {@link JobReading} holds (requests as arrays, lock keys,
 * problems, service class), its place in the snapshot, and (for Queued jobs) what depends on the
 * pass's now and nodes: priority, starving, origin node. What changes in a pass changes through its
 * methods only (ArchitectureTest), so each change of a job is found in one place.
 */
final class PreparedJob {

  final int index;
  final JobReading reading;
  final JobView view;
  final JobKey key;

  /** Resource ids of the positive requests, ascending; a request of 0 constrains nothing. */
  final int[] resourceIds;

  /** The quantities matching {@link #resourceIds}. */
  final long[] quantities;

  /** The requests as a value, for the node pool's per-pass memo. */
  final RequestShape shape;

  /** How many copies of the requests run together: 1, or a gang's replicas. */
  final int replicas;

  /** What the whole job takes (requests times replicas), matching {@link #resourceIds}. */
  final long[] totals;

  /** Distinct lock keys, sorted. */
  final List<String> lockKeys;

  /** Problems that make a Queued job InvalidSpec: the given ones plus out-of-range quantities. */
  final List<String> problems;

  final ServiceClass serviceClass;

  final Instant queuedAt;

  /** The numbers of the namespace, group (-1 without) and locks, as {@link JobReading} has them. */
  final int namespace;

  final int groupId;

  final int[] lockIds;

  /**
   * The number of the job's queue in the pass's {@link QueueTree}; {@link QueueTree#CONFLICT} when
   * two queues claim its namespace; -1 when the snapshot has no queue.
   */
  final int queue;

  /** Index of the origin node in the node pool, or -1. Set for Queued jobs. */
  final int origin;

  /** The labels its node must carry, and whose. Set for Queued jobs. */
  final QueueSelectors.PlacementLabels placement;

  /**
   * Per node index, whether the node's labels hold every pair of {@link #placement} (the job's
   * {@code spec.nodeSelector} and its queues'); null when nothing is asked (every node). Set for
   * Queued jobs.
   */
  final boolean[] selectable;

  // Its standing in the pass, set by rank(...) and addFairShare(...) only: as the pass's now makes
  // it, and again at each simulated pass of a forecast (aging), its queue's fair-share term kept.

  long effectivePriority;
  boolean starving;

  /** A BestEffort job that is not starving: deferred first when the machine is busy. */
  boolean deferrable;

  /** The fair-share term of its queue, part of {@link #effectivePriority} (0 without queues). */
  long fairShare;

  // What it holds in the pass's state, set by holdOn(...) and releaseAll() only.

  /**
   * Index of the node the job holds a reservation on in the pass's state (counted from the snapshot
   * or reserved by an admission), or -1 when it holds none or its node is not in the pool.
   */
  int reservedOn = -1;

  /**
   * A gang's node index per replica in the pass's state (counted from the snapshot or reserved by
   * an admission; -1 for a replica whose node is not in the pool), {@link #reservedOn} the first;
   * null for a single job, or a gang that holds nothing.
   */
  int[] replicaNodes;

  // Memos of the placement's speed-ups, none of them a rule.

  /**
   * Set by the forecast when it has shown that no node has room for the job now (none of the nodes
   * freed since it last found none); its next placement answers "nowhere" without a search.
   */
  boolean knownUnplaceable;

  /**
   * Position in {@link #resourceIds} of the resource the placement best-fits on; -1 until the node
   * pool works it out.
   */
  int dominant = -1;

  /** A job that is not Queued: it only holds what it requested, so it needs no node selection. */
  PreparedJob(int index, JobReading reading, Instant now, int queue) {
    this(index, reading, now, queue, -1, QueueSelectors.ANYWHERE, null);
  }

  PreparedJob(
      int index,
      JobReading reading,
      Instant now,
      int queue,
      int origin,
      QueueSelectors.PlacementLabels placement,
      boolean[] selectable) {
    this.index = index;
    this.reading = reading;
    this.view = reading.view;
    this.key = reading.key;
    this.queuedAt = reading.queuedAt == null ? now : reading.queuedAt;
    this.resourceIds = reading.resourceIds;
    this.quantities = reading.quantities;
    this.shape = reading.shape;
    this.replicas = reading.replicas;
    this.totals = reading.totals;
    this.lockKeys = reading.lockKeys;
    this.problems = reading.problems;
    this.serviceClass = reading.serviceClass;
    this.namespace = reading.namespace;
    this.groupId = reading.groupId;
    this.lockIds = reading.lockIds;
    this.queue = queue;
    this.origin = origin;
    this.placement = placement;
    this.selectable = selectable;
  }

  /** Its priority and whether it starves, as of the time the pass decides at. */
  void rank(long effectivePriority, boolean starving) {
    this.effectivePriority = effectivePriority;
    this.starving = starving;
    this.deferrable = serviceClass == ServiceClass.BestEffort && !starving;
  }

  /** Adds its queue's fair-share term to its priority (once, before the pass's order is made). */
  void addFairShare(long term) {
    fairShare = term;
    effectivePriority = Quantities.add(effectivePriority, term);
  }

  /** Holds a reservation on {@code node} (-1: off the pool), a gang one per replica node. */
  void holdOn(int node, int[] replicaNodes) {
    this.reservedOn = node;
    this.replicaNodes = replicaNodes;
  }

  /** Shown by the forecast: no node has room for it now; its next placement need not search. */
  void knownUnplaceable() {
    knownUnplaceable = true;
  }

  /** Whether it was known unplaceable, which holds for this one placement only and is forgotten. */
  boolean takeKnownUnplaceable() {
    boolean known = knownUnplaceable;
    knownUnplaceable = false;
    return known;
  }

  /** Forgets that it was known unplaceable (a gate before capacity may have stopped it first). */
  void forgetUnplaceable() {
    knownUnplaceable = false;
  }

  /** Remembers the position of its dominant resource, once the placement has worked it out. */
  void rememberDominant(int position) {
    dominant = position;
  }

  /** Holds nothing any more: it ended in a forecast's simulated pass. */
  void releaseAll() {
    holdOn(-1, null);
  }

  /** Whether the job's nodeSelector lets it run on the node (always, without one). */
  boolean mayUse(int node) {
    return selectable == null || selectable[node];
  }

  /** Whether this job is a gang: more than one copy of its requests, placed together. */
  boolean gang() {
    return replicas > 1;
  }

  /** What the whole job takes of resource {@code id}: its request times its replicas; 0 if none. */
  long total(int id) {
    int i = Arrays.binarySearch(resourceIds, id);
    return i >= 0 ? totals[i] : 0;
  }

  boolean requestsNothing() {
    return resourceIds.length == 0;
  }

  /** The quantity this job requests of resource {@code id}; 0 when none. */
  long quantity(int id) {
    int i = Arrays.binarySearch(resourceIds, id);
    return i >= 0 ? quantities[i] : 0;
  }

  /** True when this job requests any of the given resource ids (both ascending). */
  boolean requestsAnyOf(int[] sortedIds) {
    int i = 0;
    int j = 0;
    while (i < resourceIds.length && j < sortedIds.length) {
      if (resourceIds[i] == sortedIds[j]) {
        return true;
      } else if (resourceIds[i] < sortedIds[j]) {
        i++;
      } else {
        j++;
      }
    }
    return false;
  }

  String group() {
    return reading.group;
  }
}
