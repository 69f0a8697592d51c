package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Resolves the {@code after} lists of every Queued job at once, in O(jobs + edges).
 *
 * <p>The graph has an edge from each Queued job with a valid spec to each Queued dependency with a
 * valid spec. Rejected jobs with a valid spec (rejected for a cycle in an earlier pass) stay in the
 * graph with their edges: when only part of a cycle's rejections landed (a write refused with 409
 * is retried next pass), the rest still see the cycle and are rejected for it too, rather than
 * skipped for a "rejected dependency", so the outcome does not depend on which write landed first.
 * Tarjan's algorithm (iterative, so a long chain cannot overflow the stack) finds the strongly
 * connected components in reverse topological order: every dependency's verdict is known before its
 * dependants are looked at. A component of more than one job, or a job after itself, is a cycle:
 * its members are rejected. A job whose dependency failed, was skipped or was rejected (earlier, or
 * in this very pass: invalid spec, cycle, or a skip found here) is skipped, naming the ancestor
 * that failed, so a whole queued subtree is skipped in one pass like DAGMan.
 */
final class DependencyGraph {

  private final List<PreparedJob> jobs;
  private final KeyIndex indexByKey;
  private final JobPhase[] phases;
  private final boolean[] invalid;
  private final boolean[] hasAfter;
  private final DependencyVerdict[] verdicts;

  private static final int[] NO_EDGES = new int[0];

  /** Per job: indexes of its Queued, valid dependencies (the graph edges). */
  private final int[][] edges;

  /**
   * @param jobs every job of the snapshot, by snapshot index
   * @param indexByKey job key to snapshot index
   * @param phases per snapshot index: the job's phase (read once, so that most jobs are not visited
   *     again here)
   * @param invalid per snapshot index: a Queued job whose spec is invalid
   * @param hasAfter per snapshot index: the job names dependencies
   */
  DependencyGraph(
      List<PreparedJob> jobs,
      KeyIndex indexByKey,
      JobPhase[] phases,
      boolean[] invalid,
      boolean[] hasAfter) {
    this.jobs = jobs;
    this.indexByKey = indexByKey;
    this.phases = phases;
    this.invalid = invalid;
    this.hasAfter = hasAfter;
    int n = jobs.size();
    verdicts = new DependencyVerdict[n];
    edges = new int[n][];
    for (int i = 0; i < n; i++) {
      if (!isVertex(i)) {
        if (phases[i] == JobPhase.Queued) {
          verdicts[i] = DependencyVerdict.INVALID;
        }
        continue;
      }
      if (!hasAfter[i]) {
        edges[i] = NO_EDGES;
        continue;
      }
      JobReading reading = jobs.get(i).reading;
      JobKey[] after = reading.afterKeys;
      int[] out = new int[after.length];
      int count = 0;
      for (int k = 0; k < after.length; k++) {
        int dep = indexByKey.get(after[k], reading.afterHashes[k]);
        if (dep >= 0 && isVertex(dep)) {
          out[count++] = dep;
        }
      }
      edges[i] = count == out.length ? out : Arrays.copyOf(out, count);
    }
    resolveAll();
  }

  /** Queued jobs with a valid spec, and Rejected ones with a valid spec (a cycle's members). */
  private boolean isVertex(int i) {
    JobPhase phase = phases[i];
    return phase == JobPhase.Queued
        ? !invalid[i]
        : phase == JobPhase.Rejected && jobs.get(i).problems.isEmpty();
  }

  /** The verdict of a Queued job. */
  DependencyVerdict verdict(int index) {
    return verdicts[index];
  }

  // Tarjan's strongly connected components, with an explicit stack.
  private void resolveAll() {
    int n = jobs.size();
    int[] order = new int[n];
    int[] low = new int[n];
    Arrays.fill(order, -1);
    boolean[] onStack = new boolean[n];
    int[] stack = new int[n];
    int stackSize = 0;
    int[] callNode = new int[n];
    int[] callEdge = new int[n];
    int counter = 0;
    for (int root = 0; root < n; root++) {
      if (edges[root] == null || order[root] >= 0) {
        continue;
      }
      if (edges[root].length == 0) {
        // A component of its own that waits on no other vertex: most jobs.
        order[root] = low[root] = counter++;
        if (phases[root] == JobPhase.Queued) {
          verdicts[root] = hasAfter[root] ? resolve(jobs.get(root)) : DependencyVerdict.READY;
        }
        continue;
      }
      int depth = 0;
      callNode[depth] = root;
      callEdge[depth] = 0;
      depth++;
      order[root] = low[root] = counter++;
      stack[stackSize++] = root;
      onStack[root] = true;
      while (depth > 0) {
        int v = callNode[depth - 1];
        if (callEdge[depth - 1] < edges[v].length) {
          int w = edges[v][callEdge[depth - 1]++];
          if (order[w] < 0) {
            order[w] = low[w] = counter++;
            stack[stackSize++] = w;
            onStack[w] = true;
            callNode[depth] = w;
            callEdge[depth] = 0;
            depth++;
          } else if (onStack[w]) {
            low[v] = Math.min(low[v], order[w]);
          }
        } else {
          if (low[v] == order[v]) {
            int start = stackSize;
            do {
              start--;
              onStack[stack[start]] = false;
            } while (stack[start] != v);
            resolveComponent(Arrays.copyOfRange(stack, start, stackSize));
            stackSize = start;
          }
          depth--;
          if (depth > 0) {
            int parent = callNode[depth - 1];
            low[parent] = Math.min(low[parent], low[v]);
          }
        }
      }
    }
  }

  private void resolveComponent(int[] members) {
    int only = members[0];
    boolean selfLoop = false;
    if (members.length == 1) {
      for (int w : edges[only]) {
        selfLoop |= w == only;
      }
    }
    if (members.length == 1 && !selfLoop) {
      if (phases[only] == JobPhase.Queued) {
        verdicts[only] = resolve(jobs.get(only));
      }
      return;
    }
    DependencyVerdict cycle =
        new DependencyVerdict(
            DependencyVerdict.Kind.CYCLE, cycleMessage(members), List.of(), null, null);
    for (int m : members) {
      verdicts[m] = cycle;
    }
  }

  /**
   * One failed ancestor candidate: the ancestor, how it failed, and the dependency it is reached
   * through.
   */
  private record Failure(String ancestor, String how, String via) {}

  private DependencyVerdict resolve(PreparedJob job) {
    JobKey[] after = job.reading.afterKeys;
    if (after.length == 0) {
      return DependencyVerdict.READY;
    }
    String namespace = job.key.namespace();
    Failure failure = null;
    List<String> waiting = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    List<WaitingOn> waitingOn = new ArrayList<>();
    for (int k = 0; k < after.length; k++) {
      String name = after[k].name();
      int dep = indexByKey.get(after[k], job.reading.afterHashes[k]);
      if (dep < 0) {
        missing.add(name);
        waitingOn.add(new WaitingOn(WaitingOn.AFTER, name));
        continue;
      }
      JobPhase phase = phases[dep];
      Failure found = null;
      switch (phase) {
        case Succeeded -> {}
        case Failed -> found = new Failure(name, "failed", null);
        case Skipped -> found = new Failure(name, "was skipped", null);
        case Rejected -> found = new Failure(name, "was rejected", null);
        case Admitted, Running -> {
          waiting.add(name);
          waitingOn.add(new WaitingOn(WaitingOn.AFTER, name));
        }
        case Queued -> {
          DependencyVerdict v = verdicts[dep];
          switch (v.kind()) {
            case INVALID -> found = new Failure(name, "is rejected for an invalid spec", null);
            case CYCLE -> found = new Failure(name, "is rejected for a dependency cycle", null);
            case SKIP -> found = new Failure(v.ancestor(), v.ancestorHow(), name);
            default -> {
              waiting.add(name);
              waitingOn.add(new WaitingOn(WaitingOn.AFTER, name));
            }
          }
        }
        default -> throw new IllegalStateException("unknown phase " + phase);
      }
      if (found != null && (failure == null || earlier(found, failure))) {
        failure = found;
      }
    }
    if (failure != null) {
      String message =
          failure.via() == null
              ? "skipped: dependency " + failure.ancestor() + " " + failure.how() + "."
              : "skipped: ancestor "
                  + failure.ancestor()
                  + " "
                  + failure.how()
                  + " (reached through dependency "
                  + failure.via()
                  + ").";
      return new DependencyVerdict(
          DependencyVerdict.Kind.SKIP, message, List.of(), failure.ancestor(), failure.how());
    }
    if (waiting.isEmpty() && missing.isEmpty()) {
      return DependencyVerdict.READY;
    }
    // Names only, not their phases: a dependency moves from Queued to Admitted to Running on its
    // own, and a status naming that would be stale (wording is written at most once per refresh)
    // or rewritten on every dependant at each step. The message changes when what is waited for
    // does (one done, one deleted or applied), and `kubectl octomy why` gives the phases as of now.
    StringBuilder message = new StringBuilder("waiting for dependency: ");
    if (!waiting.isEmpty()) {
      message.append(String.join(", ", waiting)).append(" must succeed first");
    }
    if (!missing.isEmpty()) {
      if (!waiting.isEmpty()) {
        message.append("; ");
      }
      message
          .append(String.join(", ", missing))
          .append(missing.size() == 1 ? " does" : " do")
          .append(" not exist in namespace ")
          .append(namespace)
          .append(
              ": it may not be applied yet; a dependency that ran and was deleted counts as"
                  + " missing too, so re-create it or remove it from after");
    }
    return new DependencyVerdict(
        DependencyVerdict.Kind.WAIT, message.append('.').toString(), waitingOn, null, null);
  }

  /** Deterministic choice among several failed ancestors, independent of list order. */
  private static boolean earlier(Failure a, Failure b) {
    int c = a.ancestor().compareTo(b.ancestor());
    if (c != 0) {
      return c < 0;
    }
    String va = a.via() == null ? "" : a.via();
    String vb = b.via() == null ? "" : b.via();
    return va.compareTo(vb) < 0;
  }

  /** Names the cycle: the first member by name, and the shortest way back to it. */
  private String cycleMessage(int[] members) {
    Map<Integer, Integer> parent = new HashMap<>();
    boolean[] inComponent = new boolean[jobs.size()];
    int start = members[0];
    for (int m : members) {
      inComponent[m] = true;
      if (jobs.get(m).key.name().compareTo(jobs.get(start).key.name()) < 0) {
        start = m;
      }
    }
    // Breadth-first from the start, over edges inside the component, until an edge leads back.
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    queue.add(start);
    parent.put(start, -1);
    int last = -1;
    search:
    while (!queue.isEmpty()) {
      int u = queue.poll();
      for (int w : sortedEdges(u)) {
        if (!inComponent[w]) {
          continue;
        }
        if (w == start) {
          last = u;
          break search;
        }
        if (!parent.containsKey(w)) {
          parent.put(w, u);
          queue.add(w);
        }
      }
    }
    List<String> path = new ArrayList<>();
    for (int at = last; at != -1; at = parent.get(at)) {
      path.add(0, jobs.get(at).key.name());
    }
    StringBuilder sentence = new StringBuilder("rejected: dependency cycle: ");
    for (int i = 0; i < path.size(); i++) {
      String next = i + 1 < path.size() ? path.get(i + 1) : path.get(0);
      sentence.append(i == 0 ? "" : ", ").append(path.get(i)).append(" runs after ").append(next);
    }
    sentence.append(".");
    if (members.length > path.size()) {
      List<String> names = new ArrayList<>();
      for (int m : members) {
        names.add(jobs.get(m).key.name());
      }
      names.sort(null);
      sentence.append(" Jobs in the cycle: ").append(String.join(", ", names)).append('.');
    }
    return sentence.append(" Remove one of these after entries.").toString();
  }

  /** Out-edges by dependency name, so the named path does not depend on list order. */
  private int[] sortedEdges(int u) {
    return Arrays.stream(edges[u])
        .boxed()
        .sorted((a, b) -> jobs.get(a).key.name().compareTo(jobs.get(b).key.name()))
        .mapToInt(Integer::intValue)
        .toArray();
  }
}
