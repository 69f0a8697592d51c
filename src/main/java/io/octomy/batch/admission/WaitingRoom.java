package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.ServiceClass;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Where the forecast keeps each waiting job between simulated passes: parked on exactly one gate it
 * failed, so that only a change to that gate wakes it. A job cannot be admitted while any of its
 * gates fails, so watching one is enough; when woken it is decided again in full and parked anew.
 *
 * <ul>
 *   <li>capacity: per service class a {@link RequestTree} over the class's fixed order, asked for
 *       the first job that fits a node whose allocation shrank; jobs with an origin node are also
 *       listed under it (their own work is offered with {@code ownMode});
 *   <li>budget: per namespace and class a {@link RequestTree}, asked with what is left of it;
 *   <li>locks and groups: lists per namespace-scoped name, all woken when it frees;
 *   <li>dependencies: a count of ends still awaited, woken at zero;
 *   <li>held for a starving job: see {@link HeldJobs}.
 * </ul>
 *
 * <p>Every parked job is also listed per class in pass order: which gate a job fails first changes
 * as others are admitted (a lock taken, budget spent), and a starving job whose first failed gate
 * can end becomes the job a pass protects ({@link StarvationGuard}). A pass therefore decides the
 * starving ones again, in pass order, until one is protected. A job that no pass will ever admit
 * (see {@link FuturePasses}) is never parked: it could not be protected either.
 *
 * <p>Within a service class the pass order never changes (an older job has aged at least as much,
 * and ties go to the older one), so a class's order is fixed once, as the pass order of the
 * snapshot, and each job has its position in it; across classes the order depends on the time,
 * which the caller compares at each pass. Sets of a class's jobs are bit sets over those positions.
 */
final class WaitingRoom {

  private final int classes = ServiceClass.values().length;
  private final int[] classOf;
  private final int[] position;
  private final PreparedJob[][] members = new PreparedJob[classes][];
  private final int[] namespacePosition;
  private final RequestTree[] capacity = new RequestTree[classes];

  // By node index, namespace, lock and group number (JobReading), and job index: arrays, as a
  // simulated pass parks and wakes thousands of jobs and would otherwise hash names each time.
  private final List<List<PreparedJob>> byOrigin;

  /**
   * Per namespace number and class: the jobs parked for budget, made at the first one parked, since
   * only a namespace with a budget ever has one (most have none; every forecast made and filled a
   * tree for every namespace and class).
   */
  private final RequestTree[][] budgets;

  /** Per namespace number and class: how many Queued jobs there are (the budget trees' sizes). */
  private final int[][] namespaceCounts;

  private final int resources;
  private final List<List<PreparedJob>> locks;
  private final List<List<PreparedJob>> groups;
  private final List<List<PreparedJob>> dependants;
  private final int[] dependenciesLeft;

  /** By job index: the number of the lock a job parked on a lock waits for. */
  private final int[] lockOf;

  /** The gate each parked job waits on, by job index; null when it is not parked on one. */
  private final Reason[] parkedOn;

  /** Per class, by position: every parked job (see the class comment). */
  private final BitSet[] protectable = new BitSet[classes];

  /**
   * Per class: no parked job sits before this position. The first ones in pass order are admitted
   * first, so the search for the first parked job starts here instead of walking their cleared bits
   * again at every simulated pass.
   */
  private final int[] protectableFrom = new int[classes];

  /**
   * @param jobs how many jobs the snapshot has (job indexes are below it)
   * @param queued the Queued jobs, in pass order
   * @param scopes the numbers the jobs were read with (their namespace, group and lock numbers are
   *     below its counts: sized from them, the room reads no job that is not Queued)
   * @param resources the number of resource ids
   */
  WaitingRoom(int jobs, List<PreparedJob> queued, ScopeNumbers scopes, int nodes, int resources) {
    classOf = new int[jobs];
    position = new int[jobs];
    namespacePosition = new int[jobs];
    dependenciesLeft = new int[jobs];
    lockOf = new int[jobs];
    parkedOn = new Reason[jobs];
    int namespaces = scopes.namespaceCount();
    byOrigin = lists(nodes);
    locks = lists(scopes.lockCount());
    groups = lists(scopes.groupCount());
    dependants = lists(jobs);
    budgets = new RequestTree[namespaces][];
    List<List<PreparedJob>> byClass = new ArrayList<>();
    for (int c = 0; c < classes; c++) {
      byClass.add(new ArrayList<>());
    }
    for (PreparedJob job : queued) {
      classOf[job.index] = job.serviceClass.ordinal();
      byClass.get(classOf[job.index]).add(job);
    }
    this.resources = resources;
    namespaceCounts = new int[namespaces][];
    for (int c = 0; c < classes; c++) {
      members[c] = byClass.get(c).toArray(PreparedJob[]::new);
      protectable[c] = new BitSet(members[c].length);
      for (int i = 0; i < members[c].length; i++) {
        PreparedJob job = members[c][i];
        position[job.index] = i;
        if (namespaceCounts[job.namespace] == null) {
          namespaceCounts[job.namespace] = new int[classes];
        }
        namespacePosition[job.index] = namespaceCounts[job.namespace][c]++;
      }
      capacity[c] = new RequestTree(members[c].length, resources);
    }
  }

  /** The budget tree of the job's namespace and class, made when first needed. */
  private RequestTree budgetTree(PreparedJob job) {
    int c = classOf[job.index];
    if (budgets[job.namespace] == null) {
      budgets[job.namespace] = new RequestTree[classes];
    }
    RequestTree tree = budgets[job.namespace][c];
    if (tree == null) {
      tree = new RequestTree(namespaceCounts[job.namespace][c], resources);
      budgets[job.namespace][c] = tree;
    }
    return tree;
  }

  /** {@code count} empty lists, each made when first added to. */
  private static List<List<PreparedJob>> lists(int count) {
    List<List<PreparedJob>> lists = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      lists.add(null);
    }
    return lists;
  }

  private static void add(List<List<PreparedJob>> lists, int at, PreparedJob job) {
    List<PreparedJob> list = lists.get(at);
    if (list == null) {
      list = new ArrayList<>(4);
      lists.set(at, list);
    }
    list.add(job);
  }

  /** Takes out and returns the list at {@code at}; empty when there is none. */
  private static List<PreparedJob> take(List<List<PreparedJob>> lists, int at) {
    List<PreparedJob> list = lists.set(at, null);
    return list == null ? List.of() : list;
  }

  int classes() {
    return classes;
  }

  /** How many namespaces are numbered: every job's namespace number is below it. */
  int namespaces() {
    return budgets.length;
  }

  /** The service class (ordinal) of a Queued job. */
  int classOf(PreparedJob job) {
    return classOf[job.index];
  }

  void parkForCapacity(PreparedJob job) {
    parked(job, Reason.WaitingForCapacity);
    capacity[classOf[job.index]].park(position[job.index], job);
    if (job.origin >= 0) {
      add(byOrigin, job.origin, job);
    }
  }

  void parkForBudget(PreparedJob job) {
    parked(job, Reason.WaitingForBudget);
    budgetTree(job).park(namespacePosition[job.index], job);
  }

  /** Parks a job on the lock numbered {@code lock} (one of its {@code lockIds}). */
  void parkForLock(PreparedJob job, int lock) {
    parked(job, Reason.WaitingForLock);
    lockOf[job.index] = lock;
    add(locks, lock, job);
  }

  void parkForGroup(PreparedJob job) {
    parked(job, Reason.WaitingForGroup);
    add(groups, job.groupId, job);
  }

  /** Counts one more awaited end of {@code dependency} for {@code job}. */
  void awaitDependency(PreparedJob job, PreparedJob dependency) {
    add(dependants, dependency.index, job);
    dependenciesLeft[job.index]++;
  }

  private void parked(PreparedJob job, Reason gate) {
    parkedOn[job.index] = gate;
    int c = classOf[job.index];
    protectable[c].set(position[job.index]);
    protectableFrom[c] = Math.min(protectableFrom[c], position[job.index]);
  }

  private void unparked(PreparedJob job) {
    parkedOn[job.index] = null;
    protectable[classOf[job.index]].clear(position[job.index]);
  }

  /** The number of the lock a job parked on a lock waits for. */
  int lockOf(PreparedJob job) {
    return lockOf[job.index];
  }

  /** The gate a job is parked on, or null. */
  Reason parkedOn(PreparedJob job) {
    return parkedOn[job.index];
  }

  /** The first parked job of a class in pass order; null when none. */
  PreparedJob firstProtectable(int serviceClass) {
    int first = protectable[serviceClass].nextSetBit(protectableFrom[serviceClass]);
    protectableFrom[serviceClass] = first < 0 ? size(serviceClass) : first;
    return member(serviceClass, first);
  }

  /** A Queued job's position within its class's fixed order. */
  int position(PreparedJob job) {
    return position[job.index];
  }

  /** The job at a position of a class's order; null for a negative position (none). */
  PreparedJob member(int serviceClass, int position) {
    return position < 0 ? null : members[serviceClass][position];
  }

  /** How many Queued jobs the class has. */
  int size(int serviceClass) {
    return members[serviceClass].length;
  }

  /** Takes a job out of wherever it is parked. */
  void unpark(PreparedJob job) {
    Reason gate = parkedOn[job.index];
    if (gate == null) {
      return;
    }
    switch (gate) {
      case WaitingForCapacity -> unparkCapacity(job);
      case WaitingForBudget -> unparkBudget(job);
      case WaitingForLock -> {
        remove(locks, lockOf[job.index], job);
        unparked(job);
      }
      case WaitingForGroup -> {
        remove(groups, job.groupId, job);
        unparked(job);
      }
      default -> throw new IllegalStateException(job.key + " is parked on " + gate);
    }
  }

  private static void remove(List<List<PreparedJob>> lists, int at, PreparedJob job) {
    List<PreparedJob> waiting = lists.get(at);
    waiting.remove(job);
    if (waiting.isEmpty()) {
      lists.set(at, null);
    }
  }

  /** Takes a job chosen from a tree out of its tree (and its origin's list). */
  void unparkCapacity(PreparedJob job) {
    unparked(job);
    capacity[classOf[job.index]].unpark(position[job.index]);
    if (job.origin >= 0) {
      byOrigin.get(job.origin).remove(job);
    }
  }

  void unparkBudget(PreparedJob job) {
    unparked(job);
    budgetTree(job).unpark(namespacePosition[job.index]);
  }

  /** The first job of a class parked for capacity whose requests fit {@code room}, or null. */
  PreparedJob firstForCapacity(int serviceClass, long[] room) {
    return capacity[serviceClass].first(room);
  }

  /** Jobs parked for capacity whose origin is the node. */
  List<PreparedJob> parkedWithOrigin(int node) {
    List<PreparedJob> parked = byOrigin.get(node);
    return parked == null ? List.of() : parked;
  }

  /**
   * The first job of the namespace (numbered {@code ns}) and class parked for budget that fits
   * {@code left}, or null.
   */
  PreparedJob firstForBudget(int ns, int serviceClass, long[] left) {
    RequestTree[] trees = ns < budgets.length ? budgets[ns] : null;
    RequestTree tree = trees == null ? null : trees[serviceClass];
    return tree == null ? null : tree.first(left);
  }

  /** Wakes (removes and returns) every job parked on the lock numbered {@code lock}. */
  List<PreparedJob> wakeLock(int lock) {
    List<PreparedJob> woken = take(locks, lock);
    woken.forEach(this::unparked);
    return woken;
  }

  /** Wakes every job parked on the group numbered {@code group}. */
  List<PreparedJob> wakeGroup(int group) {
    List<PreparedJob> woken = take(groups, group);
    woken.forEach(this::unparked);
    return woken;
  }

  /** Counts an end of {@code dependency}; returns the dependants no longer waiting for anything. */
  List<PreparedJob> dependencyEnded(PreparedJob dependency) {
    List<PreparedJob> waiting = take(dependants, dependency.index);
    if (waiting.isEmpty()) {
      return List.of();
    }
    List<PreparedJob> ready = new ArrayList<>();
    for (PreparedJob job : waiting) {
      if (--dependenciesLeft[job.index] == 0) {
        ready.add(job);
      }
    }
    return ready;
  }
}
