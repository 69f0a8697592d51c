package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Policy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who holds which lock and group slot, and how much of each namespace budget is in use. Built from
 * the Admitted and Running jobs of the snapshot (so a restarted controller rebuilds the same
 * picture) and updated by every admission of the pass. Locks and groups are namespace-scoped.
 */
final class Reservations {

  private final Policy policy;
  private final ResourceIndex resources;

  /*
   * Namespaces, groups and locks are looked at by the numbers the jobs' readings hold ({@link
   * ScopeNumbers}), in arrays that grow as holders come: at ten thousand jobs a pass, looking each
   * job's names up at its turn was an eighth of the pass.
   */
  private final ScopeNumbers scopes;

  /**
   * Per namespace number: per resource id the budget's limit, or -1 when the budget does not list
   * it; null (or past the end) when the namespace has no budget.
   */
  private final long[][] budgetLimits;

  /** Per namespace number: per resource id what its holders use, when it has a budget. */
  private final long[][] budgetUsed;

  /*
   * Holders are kept as the jobs themselves and told apart by identity: a simulated end takes its
   * job out of a list without reading any holder's name. Names are read for the sentences only.
   */

  /** What each BatchQueue holds against its max; null while the snapshot has no queue. */
  private QueueLedger queues;

  /** Per group number: its holders in the order they took a slot (by name at first), or null. */
  private List<PreparedJob>[] groupHolders = holderLists(16);

  /** Per group number: the policy's cap plus one, or 0 until it is first asked for. */
  private int[] groupCaps = new int[16];

  /** Per lock number: its holders in the order they took it (by name at first), or null. */
  private List<PreparedJob>[] lockHolders = holderLists(16);

  Reservations(Policy policy, ResourceIndex resources, ScopeNumbers scopes) {
    this.policy = policy;
    this.resources = resources;
    this.scopes = scopes;
    Map<Integer, long[]> limitsByNamespace = new HashMap<>();
    policy
        .budgets()
        .forEach(
            (namespace, budget) -> {
              long[] limits = new long[resources.count()];
              Arrays.fill(limits, -1);
              budget.forEach(
                  (name, limit) -> {
                    int id = resources.id(name);
                    if (id >= 0) {
                      limits[id] = Math.max(0, limit);
                    }
                  });
              limitsByNamespace.put(scopes.namespace(namespace), limits);
            });
    int count = limitsByNamespace.isEmpty() ? 0 : Collections.max(limitsByNamespace.keySet()) + 1;
    budgetLimits = new long[count][];
    budgetUsed = new long[count][];
    limitsByNamespace.forEach(
        (ns, limits) -> {
          budgetLimits[ns] = limits;
          budgetUsed[ns] = new long[resources.count()];
        });
  }

  @SuppressWarnings("unchecked")
  private static List<PreparedJob>[] holderLists(int size) {
    return (List<PreparedJob>[]) new List<?>[size];
  }

  private static List<PreparedJob> holders(List<PreparedJob>[] byNumber, int id) {
    return id < byNumber.length && byNumber[id] != null ? byNumber[id] : List.of();
  }

  private static List<PreparedJob>[] add(List<PreparedJob>[] byNumber, int id, PreparedJob holder) {
    List<PreparedJob>[] lists =
        id < byNumber.length
            ? byNumber
            : Arrays.copyOf(byNumber, Math.max(id + 1, byNumber.length * 2));
    if (lists[id] == null) {
      lists[id] = new ArrayList<>(2);
    }
    lists[id].add(holder);
    return lists;
  }

  private long[] limits(int ns) {
    return ns < budgetLimits.length ? budgetLimits[ns] : null;
  }

  /** From now on, holds and releases count in the queues' ledger too. */
  void countQueues(QueueLedger ledger) {
    queues = ledger;
  }

  /** Counts a job's locks, group slot and budget use (an existing holder or a new admission). */
  void hold(PreparedJob job) {
    if (queues != null) {
      queues.hold(job);
    }
    for (int lock : job.lockIds) {
      lockHolders = add(lockHolders, lock, job);
    }
    if (job.groupId >= 0) {
      groupHolders = add(groupHolders, job.groupId, job);
    }
    if (limits(job.namespace) != null) {
      long[] used = budgetUsed[job.namespace];
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        used[id] = QuantityMath.add(used[id], job.totals[k]);
      }
    }
  }

  /**
   * Returns a finished job's locks, group slot and budget (for simulated later passes). Holders
   * lists keep their order, so messages name the remaining holders as the pass would.
   */
  void release(PreparedJob job) {
    if (queues != null) {
      queues.release(job);
    }
    for (int lock : job.lockIds) {
      holders(lockHolders, lock).remove(job);
    }
    if (job.groupId >= 0) {
      holders(groupHolders, job.groupId).remove(job);
    }
    if (limits(job.namespace) != null) {
      long[] used = budgetUsed[job.namespace];
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        if (used[id] != Long.MAX_VALUE) {
          used[id] = Math.max(0, used[id] - job.totals[k]);
        }
      }
    }
  }

  /** True when someone in the namespace holds the lock. */
  boolean lockHeld(String namespace, String key) {
    int id = scopes.knownLock(namespace, key);
    return id >= 0 && lockHeld(id);
  }

  /** True when someone holds the lock numbered {@code lock} (one of a job's {@code lockIds}). */
  boolean lockHeld(int lock) {
    return !holders(lockHolders, lock).isEmpty();
  }

  /** True when the namespace has a budget for the resource. */
  boolean budgeted(String namespace, int resource) {
    int ns = scopes.knownNamespace(namespace);
    return ns >= 0 && budgeted(ns, resource);
  }

  /** True when the namespace numbered {@code ns} has a budget for the resource. */
  boolean budgeted(int ns, int resource) {
    long[] limits = limits(ns);
    return limits != null && limits[resource] >= 0;
  }

  /** Budget left in the namespace for a resource (never below 0); MAX_VALUE when unbounded. */
  long budgetLeft(String namespace, int resource) {
    int ns = scopes.knownNamespace(namespace);
    return ns < 0 ? Long.MAX_VALUE : budgetLeft(ns, resource);
  }

  /** {@link #budgetLeft(String, int)} of the namespace numbered {@code ns}. */
  long budgetLeft(int ns, int resource) {
    long[] limits = limits(ns);
    if (limits == null || limits[resource] < 0) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, limits[resource] - budgetUsed[ns][resource]);
  }

  /** Sorts the holders read off the snapshot, so messages do not depend on the input order. */
  void sortExisting() {
    for (List<PreparedJob> holders : lockHolders) {
      if (holders != null) {
        holders.sort(BY_NAME);
      }
    }
    for (List<PreparedJob> holders : groupHolders) {
      if (holders != null) {
        holders.sort(BY_NAME);
      }
    }
  }

  private static final Comparator<PreparedJob> BY_NAME = Comparator.comparing(j -> j.key.name());

  /** Every lock of the job that someone holds, with every holder; empty when none is held. */
  List<WaitingOn> blockingLocks(PreparedJob job) {
    List<WaitingOn> blocking = List.of();
    for (int k = 0; k < job.lockIds.length; k++) {
      List<PreparedJob> holders = holders(lockHolders, job.lockIds[k]);
      if (!holders.isEmpty()) {
        String key = job.lockKeys.get(k);
        if (blocking.isEmpty()) {
          blocking = new ArrayList<>();
        }
        for (PreparedJob holder : holders) {
          blocking.add(new WaitingOn(key, holder.key.name()));
        }
      }
    }
    return blocking;
  }

  /** The holders of the job's group when the group is at its cap; empty when there is room. */
  List<String> fullGroupHolders(PreparedJob job) {
    if (job.groupId < 0) {
      return List.of();
    }
    List<PreparedJob> holders = holders(groupHolders, job.groupId);
    if (holders.size() < groupCap(job)) {
      return List.of();
    }
    List<String> names = new ArrayList<>(holders.size());
    for (PreparedJob holder : holders) {
      names.add(holder.key.name());
    }
    return names;
  }

  /**
   * Slots of the job's group still free in its namespace; {@code Integer.MAX_VALUE} without a
   * group.
   */
  int freeGroupSlots(PreparedJob job) {
    if (job.groupId < 0) {
      return Integer.MAX_VALUE;
    }
    return Math.max(0, groupCap(job) - holders(groupHolders, job.groupId).size());
  }

  /** The cap of the job's group (of a group the policy does not list when it has none). */
  int groupCap(PreparedJob job) {
    int id = job.groupId;
    if (id < 0) {
      return policy.maxRunning(job.group());
    }
    if (id >= groupCaps.length) {
      groupCaps = Arrays.copyOf(groupCaps, Math.max(id + 1, groupCaps.length * 2));
    }
    if (groupCaps[id] == 0) {
      groupCaps[id] = policy.maxRunning(job.group()) + 1;
    }
    return groupCaps[id] - 1;
  }

  /**
   * The first budgeted resource that {@code taker}, admitted now, would leave too little of for
   * {@code first} (same namespace) to fit the budget afterwards, whether or not {@code first} fits
   * it now (a job waiting for budget needs it to drain); null when nothing is taken from it.
   */
  String budgetTakenFrom(PreparedJob first, PreparedJob taker) {
    long[] limits = limits(taker.namespace);
    if (limits == null || first.namespace != taker.namespace) {
      return null;
    }
    long[] used = budgetUsed[taker.namespace];
    for (int k = 0; k < taker.resourceIds.length; k++) {
      int id = taker.resourceIds[k];
      long need = first.total(id);
      if (limits[id] < 0 || need == 0) {
        continue;
      }
      long after = QuantityMath.add(used[id], taker.totals[k]);
      if (QuantityMath.add(after, need) > limits[id]) {
        return resources.name(id);
      }
    }
    return null;
  }

  /** True when the namespace's budget limits some resource the job requests. */
  boolean hasBudget(PreparedJob job) {
    long[] limits = limits(job.namespace);
    if (limits == null) {
      return false;
    }
    for (int id : job.resourceIds) {
      if (limits[id] >= 0) {
        return true;
      }
    }
    return false;
  }

  /** True unless some request is above the whole budget: the job could fit it once it drains. */
  boolean fitsWholeBudget(PreparedJob job) {
    long[] limits = limits(job.namespace);
    if (limits == null) {
      return true;
    }
    for (int k = 0; k < job.resourceIds.length; k++) {
      long limit = limits[job.resourceIds[k]];
      if (limit >= 0 && job.totals[k] > limit) {
        return false;
      }
    }
    return true;
  }

  /** True when the job fits what is left of its namespace's budget now (or it has none). */
  boolean fitsBudgetNow(PreparedJob job) {
    long[] limits = limits(job.namespace);
    if (limits == null) {
      return true;
    }
    long[] used = budgetUsed[job.namespace];
    for (int k = 0; k < job.resourceIds.length; k++) {
      int id = job.resourceIds[k];
      if (limits[id] >= 0 && QuantityMath.add(used[id], job.totals[k]) > limits[id]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every budgeted request that would take the namespace over its budget now, with the numbers;
   * empty when the job fits the budget (or the namespace has none).
   */
  List<Gate.Budget> budgetGates(PreparedJob job) {
    String namespace = job.key.namespace();
    long[] limits = limits(job.namespace);
    if (limits == null) {
      return List.of();
    }
    long[] used = budgetUsed[job.namespace];
    List<Gate.Budget> gates = List.of();
    for (int k = 0; k < job.resourceIds.length; k++) {
      int id = job.resourceIds[k];
      long limit = limits[id];
      if (limit < 0 || QuantityMath.add(used[id], job.totals[k]) <= limit) {
        continue;
      }
      if (gates.isEmpty()) {
        gates = new ArrayList<>();
      }
      gates.add(new Gate.Budget(namespace, resources.name(id), job.totals[k], used[id], limit));
    }
    return gates;
  }

  /**
   * The budget sentence parts for every request that would exceed the namespace budget; empty when
   * the job fits the budget (or the namespace has none).
   */
  List<String> budgetShortfalls(PreparedJob job) {
    List<Gate.Budget> gates = budgetGates(job);
    if (gates.isEmpty()) {
      return List.of();
    }
    List<String> parts = new ArrayList<>(gates.size());
    for (Gate.Budget b : gates) {
      if (b.request() > b.limit()) {
        parts.add(
            "need "
                + b.request()
                + " "
                + b.resource()
                + ", more than the whole budget of "
                + b.limit()
                + " in namespace "
                + b.namespace());
      } else {
        parts.add(
            "need "
                + b.request()
                + " "
                + b.resource()
                + ", "
                + b.inUse()
                + " already admitted or running in namespace "
                + b.namespace()
                + ", budget is "
                + b.limit());
      }
    }
    return parts;
  }
}
