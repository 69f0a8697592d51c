package io.octomy.batch.admission;

import io.octomy.batch.admission.ForecastTimeline.End;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
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

  private final AdmissionPass pass;
  private final WaitingRoom room;
  private final HeldJobs held;
  private final PassCandidates candidates;
  private final Consumer<PreparedJob> touch;

  private final PriorityQueue<PreparedJob> woken = new PriorityQueue<>(AdmissionPass.PASS_ORDER);
  private final Map<Integer, End> nodeSources = new LinkedHashMap<>();

  /** By namespace number, in the order their budgets grew. */
  private final Map<Integer, End> budgetSources = new LinkedHashMap<>();

  private End firstEnd;

  /**
   * @param touch brings a job's priority and starving up to the pass's time
   */
  PassSources(
      AdmissionPass pass,
      WaitingRoom room,
      HeldJobs held,
      PassCandidates candidates,
      Consumer<PreparedJob> touch) {
    this.pass = pass;
    this.room = room;
    this.held = held;
    this.candidates = candidates;
    this.touch = touch;
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

  /** The nodes freed in this pass. */
  Set<Integer> freedNodes() {
    return nodeSources.keySet();
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
    for (Map.Entry<Integer, End> source : nodeSources.entrySet()) {
      PreparedJob head = candidates.nodeHead(source.getKey());
      if (head != null && (best == null || AdmissionPass.PASS_ORDER.compare(head, best) < 0)) {
        best = head;
        from = TakenFrom.NODE;
        by = source.getValue();
      }
    }
    for (Map.Entry<Integer, End> source : budgetSources.entrySet()) {
      PreparedJob head = candidates.budgetHead(source.getKey());
      if (head != null && (best == null || AdmissionPass.PASS_ORDER.compare(head, best) < 0)) {
        best = head;
        from = TakenFrom.BUDGET;
        by = source.getValue();
      }
    }
    for (int c = 0; c < room.classes(); c++) {
      PreparedJob head = held.next(c);
      if (head != null) {
        touch.accept(head);
        if (best == null || AdmissionPass.PASS_ORDER.compare(head, best) < 0) {
          best = head;
          from = TakenFrom.HELD;
          by = firstEnd;
        }
      }
    }
    if (pass.guard().hold() == null) {
      PreparedJob head = candidates.starvingHead();
      if (head != null && (best == null || AdmissionPass.PASS_ORDER.compare(head, best) < 0)) {
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
