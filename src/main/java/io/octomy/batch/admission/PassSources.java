package io.octomy.batch.admission;

import io.octomy.batch.admission.ForecastTimeline.End;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Where the jobs one simulated pass of {@link FuturePasses} decides come from, and which of them
 * comes next: the woken jobs, the parked jobs that fit a node freed in the pass or a namespace
 * budget that grew in it ({@link PassCandidates}), the jobs held for a starving job ({@link
 * HeldJobs}), and the first starving parked job until one is protected. The first of them in pass
 * order comes next, as in the pass itself.
 */
final class PassSources {

  /** Where the job a pass takes next comes from. */
  enum TakenFrom {
    WOKEN,
    NODE,
    BUDGET,
    HELD,
    STARVING
  }

  /** The job a pass takes next, where it waited, and the end that let it be decided again. */
  record Choice(PreparedJob job, TakenFrom from, End by) {}

  private final PassState pass;
  private final WaitingRoom room;
  private final HeldJobs held;
  private final PassCandidates candidates;
  private final Consumer<PreparedJob> touch;

  private final PriorityQueue<PreparedJob> woken = new PriorityQueue<>(AdmissionRules.PASS_ORDER);

  /** The nodes freed in the pass, in the order they were freed, each with its first end. */
  private final FirstEnds nodeSources;

  /** By namespace number, in the order their budgets grew. */
  private final FirstEnds budgetSources;

  /**
   * Numbers (of nodes or namespaces) in the order first added in a pass, each with the end that
   * added it first; kept in arrays, since every choice of a simulated pass reads them in order.
   */
  private static final class FirstEnds {
    private final int[] passAdded;
    private int[] numbers = new int[16];
    private End[] ends = new End[16];
    private int size;
    private int pass = 1;

    FirstEnds(int count) {
      this.passAdded = new int[count];
    }

    void putIfAbsent(int number, End end) {
      if (passAdded[number] == pass) {
        return;
      }
      passAdded[number] = pass;
      if (size == numbers.length) {
        numbers = Arrays.copyOf(numbers, size * 2);
        ends = Arrays.copyOf(ends, size * 2);
      }
      numbers[size] = number;
      ends[size++] = end;
    }

    void clear() {
      Arrays.fill(ends, 0, size, null);
      size = 0;
      pass++;
    }
  }

  private End firstEnd;

  /**
   * @param touch brings a job's priority and starving up to the pass's time
   */
  PassSources(
      PassState pass,
      WaitingRoom room,
      HeldJobs held,
      PassCandidates candidates,
      Consumer<PreparedJob> touch) {
    this.pass = pass;
    this.room = room;
    this.held = held;
    this.candidates = candidates;
    this.touch = touch;
    this.nodeSources = new FirstEnds(pass.pool().size());
    this.budgetSources = new FirstEnds(room.namespaces());
  }

  void startPass() {
    firstEnd = null;
  }

  /** An end released in this pass; the first one is what held and starving jobs owe their turn. */
  void ended(End end) {
    if (firstEnd == null) {
      firstEnd = end;
    }
  }

  End firstEnd() {
    return firstEnd;
  }

  void nodeFreed(int node, End by) {
    nodeSources.putIfAbsent(node, by);
  }

  /** The budget of the namespace numbered {@code ns} grew. */
  void budgetGrew(int ns, End by) {
    budgetSources.putIfAbsent(ns, by);
  }

  /** How many nodes were freed in this pass. */
  int freedNodeCount() {
    return nodeSources.size;
  }

  /** The {@code i}-th node freed in this pass. */
  int freedNode(int i) {
    return nodeSources.numbers[i];
  }

  void wake(PreparedJob job) {
    woken.add(job);
  }

  /** Takes the first woken job out of the woken ones (it came next). */
  void takeWoken() {
    woken.poll();
  }

  /** The job that comes next, left where it waits; {@code null} when no source has one. */
  Choice next() {
    PreparedJob best = woken.peek();
    TakenFrom from = TakenFrom.WOKEN;
    End by = null;
    for (int i = 0; i < nodeSources.size; i++) {
      PreparedJob head = candidates.nodeHead(nodeSources.numbers[i]);
      if (head != null && (best == null || AdmissionRules.PASS_ORDER.compare(head, best) < 0)) {
        best = head;
        from = TakenFrom.NODE;
        by = nodeSources.ends[i];
      }
    }
    for (int i = 0; i < budgetSources.size; i++) {
      PreparedJob head = candidates.budgetHead(budgetSources.numbers[i]);
      if (head != null && (best == null || AdmissionRules.PASS_ORDER.compare(head, best) < 0)) {
        best = head;
        from = TakenFrom.BUDGET;
        by = budgetSources.ends[i];
      }
    }
    for (int c = 0; c < room.classes(); c++) {
      PreparedJob head = held.next(c);
      if (head != null) {
        touch.accept(head);
        if (best == null || AdmissionRules.PASS_ORDER.compare(head, best) < 0) {
          best = head;
          from = TakenFrom.HELD;
          by = firstEnd;
        }
      }
    }
    if (pass.guard().hold() == null) {
      PreparedJob head = candidates.starvingHead();
      if (head != null && (best == null || AdmissionRules.PASS_ORDER.compare(head, best) < 0)) {
        best = head;
        from = TakenFrom.STARVING;
        by = firstEnd;
      }
    }
    return best == null ? null : new Choice(best, from, by);
  }

  void endPass() {
    nodeSources.clear();
    budgetSources.clear();
  }
}
