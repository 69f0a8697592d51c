package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.ServiceClass;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
  private final Map<Integer, List<PreparedJob>> byOrigin = new HashMap<>();
  private final Map<String, RequestTree[]> budgets = new HashMap<>();
  private final Map<List<String>, List<PreparedJob>> locks = new HashMap<>();
  private final Map<List<String>, List<PreparedJob>> groups = new HashMap<>();
  private final Map<Integer, List<PreparedJob>> dependants = new HashMap<>();
  private final int[] dependenciesLeft;
  private final Map<Integer, String> lockOf = new HashMap<>();

  /** The gate each parked job waits on, by job index; null when it is not parked on one. */
  private final Reason[] parkedOn;

  /** Per class, by position: every parked job (see the class comment). */
  private final BitSet[] protectable = new BitSet[classes];

  /**
   * @param jobs every job of the snapshot, by index
   * @param queued the Queued jobs, in pass order
   * @param resources the number of resource ids
   */
  WaitingRoom(List<PreparedJob> jobs, List<PreparedJob> queued, int resources) {
    int n = jobs.size();
    classOf = new int[n];
    position = new int[n];
    namespacePosition = new int[n];
    dependenciesLeft = new int[n];
    parkedOn = new Reason[n];
    List<List<PreparedJob>> byClass = new ArrayList<>();
    for (int c = 0; c < classes; c++) {
      byClass.add(new ArrayList<>());
    }
    for (PreparedJob job : queued) {
      classOf[job.index] = job.serviceClass.ordinal();
      byClass.get(classOf[job.index]).add(job);
    }
    Map<String, int[]> namespaceCounts = new HashMap<>();
    for (int c = 0; c < classes; c++) {
      members[c] = byClass.get(c).toArray(PreparedJob[]::new);
      protectable[c] = new BitSet(members[c].length);
      for (int i = 0; i < members[c].length; i++) {
        PreparedJob job = members[c][i];
        position[job.index] = i;
        int[] counts = namespaceCounts.computeIfAbsent(job.key.namespace(), k -> new int[classes]);
        namespacePosition[job.index] = counts[c]++;
      }
      capacity[c] = new RequestTree(members[c].length, resources);
    }
    namespaceCounts.forEach(
        (namespace, counts) -> {
          RequestTree[] trees = new RequestTree[classes];
          for (int c = 0; c < classes; c++) {
            trees[c] = new RequestTree(counts[c], resources);
          }
          budgets.put(namespace, trees);
        });
  }

  int classes() {
    return classes;
  }

  /** The service class (ordinal) of a Queued job. */
  int classOf(PreparedJob job) {
    return classOf[job.index];
  }

  void parkForCapacity(PreparedJob job) {
    parked(job, Reason.WaitingForCapacity);
    capacity[classOf[job.index]].park(position[job.index], job);
    if (job.origin >= 0) {
      byOrigin.computeIfAbsent(job.origin, k -> new ArrayList<>()).add(job);
    }
  }

  void parkForBudget(PreparedJob job) {
    parked(job, Reason.WaitingForBudget);
    budgets.get(job.key.namespace())[classOf[job.index]].park(namespacePosition[job.index], job);
  }

  void parkForLock(PreparedJob job, String key) {
    parked(job, Reason.WaitingForLock);
    lockOf.put(job.index, key);
    locks.computeIfAbsent(List.of(job.key.namespace(), key), k -> new ArrayList<>()).add(job);
  }

  void parkForGroup(PreparedJob job) {
    parked(job, Reason.WaitingForGroup);
    groups
        .computeIfAbsent(List.of(job.key.namespace(), job.group()), k -> new ArrayList<>())
        .add(job);
  }

  /** Counts one more awaited end of {@code dependency} for {@code job}. */
  void awaitDependency(PreparedJob job, PreparedJob dependency) {
    dependants.computeIfAbsent(dependency.index, k -> new ArrayList<>()).add(job);
    dependenciesLeft[job.index]++;
  }

  private void parked(PreparedJob job, Reason gate) {
    parkedOn[job.index] = gate;
    protectable[classOf[job.index]].set(position[job.index]);
  }

  private void unparked(PreparedJob job) {
    parkedOn[job.index] = null;
    protectable[classOf[job.index]].clear(position[job.index]);
  }

  /** The lock a job parked on a lock waits for. */
  String lockOf(PreparedJob job) {
    return lockOf.get(job.index);
  }

  /** The gate a job is parked on, or null. */
  Reason parkedOn(PreparedJob job) {
    return parkedOn[job.index];
  }

  /** The first parked job of a class in pass order; null when none. */
  PreparedJob firstProtectable(int serviceClass) {
    return member(serviceClass, protectable[serviceClass].nextSetBit(0));
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
        List<String> key = List.of(job.key.namespace(), lockOf.remove(job.index));
        List<PreparedJob> waiting = locks.get(key);
        waiting.remove(job);
        if (waiting.isEmpty()) {
          locks.remove(key);
        }
        unparked(job);
      }
      case WaitingForGroup -> {
        List<String> key = List.of(job.key.namespace(), job.group());
        List<PreparedJob> waiting = groups.get(key);
        waiting.remove(job);
        if (waiting.isEmpty()) {
          groups.remove(key);
        }
        unparked(job);
      }
      default -> throw new IllegalStateException(job.key + " is parked on " + gate);
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
    budgets.get(job.key.namespace())[classOf[job.index]].unpark(namespacePosition[job.index]);
  }

  /** The first job of a class parked for capacity whose requests fit {@code room}, or null. */
  PreparedJob firstForCapacity(int serviceClass, long[] room) {
    return capacity[serviceClass].first(room);
  }

  /** Jobs parked for capacity whose origin is the node. */
  List<PreparedJob> parkedWithOrigin(int node) {
    return byOrigin.getOrDefault(node, List.of());
  }

  /** The first job of the namespace and class parked for budget that fits {@code left}, or null. */
  PreparedJob firstForBudget(String namespace, int serviceClass, long[] left) {
    RequestTree[] trees = budgets.get(namespace);
    return trees == null ? null : trees[serviceClass].first(left);
  }

  /** Wakes (removes and returns) every job parked on the lock. */
  List<PreparedJob> wakeLock(String namespace, String key) {
    List<PreparedJob> woken = locks.remove(List.of(namespace, key));
    if (woken == null) {
      return List.of();
    }
    woken.forEach(
        j -> {
          lockOf.remove(j.index);
          unparked(j);
        });
    return woken;
  }

  List<PreparedJob> wakeGroup(String namespace, String group) {
    List<PreparedJob> woken = groups.remove(List.of(namespace, group));
    if (woken == null) {
      return List.of();
    }
    woken.forEach(this::unparked);
    return woken;
  }

  /** Counts an end of {@code dependency}; returns the dependants no longer waiting for anything. */
  List<PreparedJob> dependencyEnded(PreparedJob dependency) {
    List<PreparedJob> waiting = dependants.remove(dependency.index);
    if (waiting == null) {
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
