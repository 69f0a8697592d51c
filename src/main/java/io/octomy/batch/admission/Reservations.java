package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Policy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who holds which lock and group slot, and how much of each namespace budget is in use. Built from
 * the Admitted and Running jobs of the snapshot (so a restarted controller rebuilds the same
 * picture) and updated by every admission of the pass. Locks and groups are namespace-scoped.
 */
final class Reservations {

  /**
   * A name (lock key or group) inside a namespace; hashed like {@link JobKey#hashCode}, for the
   * same reason (groups g-1..g-50 in namespaces ns-1..ns-30 share few hashes under {@code 31 * a +
   * b}).
   */
  private record Scoped(String namespace, String name) {
    @Override
    public int hashCode() {
      return namespace.hashCode() * 0x9E3779B9 + name.hashCode();
    }
  }

  private final Policy policy;
  private final ResourceIndex resources;
  private final Map<Scoped, List<String>> lockHolders = new HashMap<>();
  private final Map<Scoped, List<String>> groupHolders = new HashMap<>();

  /**
   * Per namespace with a budget: per resource id the limit, or -1 when the budget does not list it.
   */
  private final Map<String, long[]> budgetLimits = new HashMap<>();

  private final Map<String, long[]> budgetUsed = new HashMap<>();

  Reservations(Policy policy, ResourceIndex resources) {
    this.policy = policy;
    this.resources = resources;
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
              budgetLimits.put(namespace, limits);
              budgetUsed.put(namespace, new long[resources.count()]);
            });
  }

  /** Counts a job's locks, group slot and budget use (an existing holder or a new admission). */
  void hold(PreparedJob job) {
    String namespace = job.key.namespace();
    for (String key : job.lockKeys) {
      lockHolders
          .computeIfAbsent(new Scoped(namespace, key), k -> new ArrayList<>(1))
          .add(job.key.name());
    }
    String group = job.group();
    if (group != null) {
      groupHolders
          .computeIfAbsent(new Scoped(namespace, group), k -> new ArrayList<>(1))
          .add(job.key.name());
    }
    long[] used = budgetUsed.get(namespace);
    if (used != null) {
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        used[id] = QuantityMath.add(used[id], job.quantities[k]);
      }
    }
  }

  /**
   * Returns a finished job's locks, group slot and budget (for simulated later passes). Holders
   * lists keep their order, so messages name the remaining holders as the pass would.
   */
  void release(PreparedJob job) {
    String namespace = job.key.namespace();
    for (String key : job.lockKeys) {
      List<String> holders = lockHolders.get(new Scoped(namespace, key));
      if (holders != null) {
        holders.remove(job.key.name());
      }
    }
    String group = job.group();
    if (group != null) {
      List<String> holders = groupHolders.get(new Scoped(namespace, group));
      if (holders != null) {
        holders.remove(job.key.name());
      }
    }
    long[] used = budgetUsed.get(namespace);
    if (used != null) {
      for (int k = 0; k < job.resourceIds.length; k++) {
        int id = job.resourceIds[k];
        if (used[id] != Long.MAX_VALUE) {
          used[id] = Math.max(0, used[id] - job.quantities[k]);
        }
      }
    }
  }

  /** True when someone in the namespace holds the lock. */
  boolean lockHeld(String namespace, String key) {
    List<String> holders = lockHolders.get(new Scoped(namespace, key));
    return holders != null && !holders.isEmpty();
  }

  /** True when the namespace has a budget for the resource. */
  boolean budgeted(String namespace, int resource) {
    long[] limits = budgetLimits.get(namespace);
    return limits != null && limits[resource] >= 0;
  }

  /** Budget left in the namespace for a resource (never below 0); MAX_VALUE when unbounded. */
  long budgetLeft(String namespace, int resource) {
    long[] limits = budgetLimits.get(namespace);
    if (limits == null || limits[resource] < 0) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, limits[resource] - budgetUsed.get(namespace)[resource]);
  }

  /** Sorts the holders read off the snapshot, so messages do not depend on the input order. */
  void sortExisting() {
    lockHolders.values().forEach(l -> l.sort(null));
    groupHolders.values().forEach(l -> l.sort(null));
  }

  /** Every lock of the job that someone holds, with every holder; empty when none is held. */
  List<WaitingOn> blockingLocks(PreparedJob job) {
    List<WaitingOn> blocking = List.of();
    for (String key : job.lockKeys) {
      List<String> holders = lockHolders.get(new Scoped(job.key.namespace(), key));
      if (holders != null && !holders.isEmpty()) {
        if (blocking.isEmpty()) {
          blocking = new ArrayList<>();
        }
        for (String holder : holders) {
          blocking.add(new WaitingOn(key, holder));
        }
      }
    }
    return blocking;
  }

  /** The holders of the job's group when the group is at its cap; empty when there is room. */
  List<String> fullGroupHolders(PreparedJob job) {
    String group = job.group();
    if (group == null) {
      return List.of();
    }
    List<String> holders =
        groupHolders.getOrDefault(new Scoped(job.key.namespace(), group), List.of());
    return holders.size() >= policy.maxRunning(group) ? holders : List.of();
  }

  /**
   * Slots of the job's group still free in its namespace; {@code Integer.MAX_VALUE} without a
   * group.
   */
  int freeGroupSlots(PreparedJob job) {
    String group = job.group();
    if (group == null) {
      return Integer.MAX_VALUE;
    }
    int holders =
        groupHolders.getOrDefault(new Scoped(job.key.namespace(), group), List.of()).size();
    return Math.max(0, policy.maxRunning(group) - holders);
  }

  int groupCap(PreparedJob job) {
    return policy.maxRunning(job.group());
  }

  /**
   * The first budgeted resource that {@code taker}, admitted now, would leave too little of for
   * {@code first} (same namespace) to fit the budget afterwards, whether or not {@code first} fits
   * it now (a job waiting for budget needs it to drain); null when nothing is taken from it.
   */
  String budgetTakenFrom(PreparedJob first, PreparedJob taker) {
    long[] limits = budgetLimits.get(taker.key.namespace());
    if (limits == null || !first.key.namespace().equals(taker.key.namespace())) {
      return null;
    }
    long[] used = budgetUsed.get(taker.key.namespace());
    for (int k = 0; k < taker.resourceIds.length; k++) {
      int id = taker.resourceIds[k];
      long need = first.quantity(id);
      if (limits[id] < 0 || need == 0) {
        continue;
      }
      long after = QuantityMath.add(used[id], taker.quantities[k]);
      if (QuantityMath.add(after, need) > limits[id]) {
        return resources.name(id);
      }
    }
    return null;
  }

  /** True when the namespace's budget limits some resource the job requests. */
  boolean hasBudget(PreparedJob job) {
    long[] limits = budgetLimits.get(job.key.namespace());
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
    long[] limits = budgetLimits.get(job.key.namespace());
    if (limits == null) {
      return true;
    }
    for (int k = 0; k < job.resourceIds.length; k++) {
      long limit = limits[job.resourceIds[k]];
      if (limit >= 0 && job.quantities[k] > limit) {
        return false;
      }
    }
    return true;
  }

  /** True when the job fits what is left of its namespace's budget now (or it has none). */
  boolean fitsBudgetNow(PreparedJob job) {
    long[] limits = budgetLimits.get(job.key.namespace());
    if (limits == null) {
      return true;
    }
    long[] used = budgetUsed.get(job.key.namespace());
    for (int k = 0; k < job.resourceIds.length; k++) {
      int id = job.resourceIds[k];
      if (limits[id] >= 0 && QuantityMath.add(used[id], job.quantities[k]) > limits[id]) {
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
    long[] limits = budgetLimits.get(namespace);
    if (limits == null) {
      return List.of();
    }
    long[] used = budgetUsed.get(namespace);
    List<Gate.Budget> gates = List.of();
    for (int k = 0; k < job.resourceIds.length; k++) {
      int id = job.resourceIds[k];
      long limit = limits[id];
      if (limit < 0 || QuantityMath.add(used[id], job.quantities[k]) <= limit) {
        continue;
      }
      if (gates.isEmpty()) {
        gates = new ArrayList<>();
      }
      gates.add(new Gate.Budget(namespace, resources.name(id), job.quantities[k], used[id], limit));
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
