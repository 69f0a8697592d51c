package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The BatchQueues of a snapshot as a tree of numbers: queues are numbered in name order, and the
 * implicit default queue (namespaces no queue claims) comes last, at the top of the tree with
 * weight 1. A parent that names no queue counts as none (GitOps applies in any order). A cycle of
 * parents breaks every queue whose chain of parents runs into it; a namespace claimed by two queues
 * belongs to neither. Both are reported here as sentences, and their jobs wait.
 */
final class QueueTree {

  /** The queue of a namespace that two or more queues claim. */
  static final int CONFLICT = -2;

  private static final int[] NO_CHAIN = new int[0];

  private final String[] names;
  private final int[] parent;
  private final long[] weight;
  private final QueueView[] views;

  /** Per queue: the cycle of parents its chain runs into, as "a -> b -> a"; null when none. */
  private final String[] cycle;

  /** Per queue: whether it is on the cycle itself (else it only hangs below one). */
  private final boolean[] onCycle;

  /**
   * Per queue: the queue and every queue above it, nearest first, each once (a chain that runs into
   * a cycle stops before it repeats a queue). Made once: the pass asks for a job's chain at every
   * gate and admission.
   */
  private final int[][] chains;

  private final Map<String, Integer> byName = new HashMap<>();
  private final Map<String, List<String>> claims = new HashMap<>();

  /** The queue of each claimed namespace: its one claimant, or {@link #CONFLICT}. */
  private final Map<String, Integer> byNamespace = new HashMap<>();

  /**
   * By namespace number ({@link ScopeNumbers}): its queue, or {@link #UNKNOWN} until looked up. A
   * namespace is looked up by name once per pass: by name for each job, the views (otherwise
   * untouched when their readings are kept) and their names cost a cache miss each.
   */
  private int[] byNamespaceNumber = new int[0];

  private static final int UNKNOWN = Integer.MIN_VALUE;

  QueueTree(List<QueueView> queues) {
    List<QueueView> sorted = new ArrayList<>(queues);
    sorted.sort((a, b) -> a.name().compareTo(b.name()));
    int n = sorted.size();
    names = new String[n + 1];
    parent = new int[n + 1];
    weight = new long[n + 1];
    views = sorted.toArray(new QueueView[n + 1]);
    for (int q = 0; q < n; q++) {
      if (byName.putIfAbsent(sorted.get(q).name(), q) != null) {
        throw new IllegalArgumentException(
            "snapshot lists queue " + sorted.get(q).name() + " twice");
      }
      names[q] = sorted.get(q).name();
      weight[q] = sorted.get(q).weight();
    }
    names[n] = "the default queue";
    weight[n] = 1;
    parent[n] = -1;
    for (int q = 0; q < n; q++) {
      Integer p = sorted.get(q).parent() == null ? null : byName.get(sorted.get(q).parent());
      parent[q] = p == null ? -1 : p;
      for (String ns : new TreeSet<>(sorted.get(q).namespaces())) {
        claims.computeIfAbsent(ns, k -> new ArrayList<>()).add(names[q]);
      }
    }
    claims.forEach(
        (ns, claimants) ->
            byNamespace.put(ns, claimants.size() == 1 ? byName.get(claimants.get(0)) : CONFLICT));
    cycle = new String[n + 1];
    onCycle = new boolean[n + 1];
    findCycles(n);
    chains = new int[n + 1][];
    for (int q = 0; q <= n; q++) {
      chains[q] = chainFrom(q);
    }
  }

  private int[] chainFrom(int queue) {
    int[] chain = new int[names.length];
    int length = 0;
    boolean[] seen = new boolean[names.length];
    for (int q = queue; q >= 0 && !seen[q]; q = parent[q]) {
      seen[q] = true;
      chain[length++] = q;
    }
    return Arrays.copyOf(chain, length);
  }

  /** Walks up from every queue; a walk that comes back to a queue it passed has found a cycle. */
  private void findCycles(int n) {
    for (int start = 0; start < n; start++) {
      int[] seenAt = new int[n];
      Arrays.fill(seenAt, -1);
      List<Integer> path = new ArrayList<>();
      for (int q = start; q >= 0; q = parent[q]) {
        if (seenAt[q] >= 0) {
          List<Integer> loop = path.subList(seenAt[q], path.size());
          cycle[start] = cycleWords(loop);
          onCycle[start] = loop.contains(start);
          break;
        }
        seenAt[q] = path.size();
        path.add(q);
      }
    }
  }

  /** The loop as names from its least name round to it again: the same words from any member. */
  private String cycleWords(List<Integer> loop) {
    int first = 0;
    for (int i = 1; i < loop.size(); i++) {
      if (names[loop.get(i)].compareTo(names[loop.get(first)]) < 0) {
        first = i;
      }
    }
    StringBuilder words = new StringBuilder();
    for (int i = 0; i <= loop.size(); i++) {
      words.append(i == 0 ? "" : " -> ").append(names[loop.get((first + i) % loop.size())]);
    }
    return words.toString();
  }

  /** Whether the snapshot has any BatchQueue: without one, the pass is as it always was. */
  boolean active() {
    return names.length > 1;
  }

  /** Queues counted, the default queue included (it is the last number). */
  int size() {
    return names.length;
  }

  int defaultQueue() {
    return names.length - 1;
  }

  /** The queue number of a namespace: its one claimant, the default queue, or {@link #CONFLICT}. */
  int queueOf(String namespace) {
    Integer queue = byNamespace.get(namespace);
    return queue == null ? defaultQueue() : queue;
  }

  /** {@link #queueOf(String)} for a job whose namespace is numbered {@code number}. */
  int queueOf(int number, JobView job) {
    if (number >= byNamespaceNumber.length) {
      int old = byNamespaceNumber.length;
      byNamespaceNumber = Arrays.copyOf(byNamespaceNumber, Math.max(number + 1, 2 * old));
      Arrays.fill(byNamespaceNumber, old, byNamespaceNumber.length, UNKNOWN);
    }
    if (byNamespaceNumber[number] == UNKNOWN) {
      byNamespaceNumber[number] = queueOf(job.namespace());
    }
    return byNamespaceNumber[number];
  }

  /**
   * The queue and every queue above it, nearest first, each once; empty for a job of no queue (a
   * negative number). Shared: not to be changed.
   */
  int[] chain(int queue) {
    return queue < 0 ? NO_CHAIN : chains[queue];
  }

  /** Whether {@code queue} is {@code ancestor} or below it. */
  boolean within(int queue, int ancestor) {
    if (queue < 0) {
      return false;
    }
    for (int q : chains[queue]) {
      if (q == ancestor) {
        return true;
      }
    }
    return false;
  }

  /** The number of the queue of that name, or -1 when the snapshot has none. */
  int indexOf(String name) {
    Integer q = byName.get(name);
    return q == null ? -1 : q;
  }

  /** Every namespace some queue claims. */
  Set<String> claimedNamespaces() {
    return claims.keySet();
  }

  /** The queues that claim a namespace, by name; empty when none does. */
  List<String> claimants(String namespace) {
    return claims.getOrDefault(namespace, List.of());
  }

  String name(int queue) {
    return names[queue];
  }

  /** The parent's number, or -1 at the top of the tree. */
  int parent(int queue) {
    return parent[queue];
  }

  long weight(int queue) {
    return weight[queue];
  }

  /** The queue's spec as the snapshot has it; null for the default queue. */
  QueueView view(int queue) {
    return views[queue];
  }

  /** The cycle of parents the queue's chain runs into ("a -> b -> a"); null when none. */
  String cycle(int queue) {
    return queue >= 0 ? cycle[queue] : null;
  }

  /** Whether the queue is itself a member of its cycle. */
  boolean onCycle(int queue) {
    return onCycle[queue];
  }

  /** The sentence of a job whose namespace two or more queues claim. */
  String conflictWords(String namespace) {
    List<String> claimants = claimants(namespace);
    return "waiting for its queue: namespace "
        + namespace
        + " is claimed by queues "
        + String.join(" and ", claimants)
        + ", so it belongs to none of them; remove it from all but one of them (spec.namespaces"
        + " or spec.namespaceSelector).";
  }

  /** The sentence of a job whose queue runs into a cycle of parents. */
  String cycleWords(int queue) {
    return "waiting for its queue: queue "
        + names[queue]
        + (onCycle[queue] ? " is in a cycle of parents (" : " hangs below a cycle of parents (")
        + cycle[queue]
        + "), so none of them holds a job; set spec.parent of one of them to break it.";
  }
}
