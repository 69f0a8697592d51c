package io.octomy.batch.admission;

import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The parked jobs a simulated pass may have to decide again, besides the woken ones ({@link
 * FuturePasses}): per node freed in the pass, the first job in pass order parked for capacity that
 * fits it now; per namespace whose budget grew, the first parked for budget that fits what is left;
 * and the first starving parked job, until one is protected. Each answer is cached for the pass and
 * forgotten when what it depends on changes.
 */
final class PassCandidates {

  private final NodePool pool;
  private final Reservations reservations;
  private final WaitingRoom room;
  private final Consumer<PreparedJob> touch;
  private final Predicate<PreparedJob> decided;

  /** Per node, its head, valid in the pass whose number {@link #nodeHeadPass} holds. */
  private final PreparedJob[] nodeHeads;

  private final int[] nodeHeadPass;

  /**
   * Per job, the nodes it heads in this pass, as a list linked through the nodes ({@link
   * #nextHeaded}, {@link #previousHeaded}; -1 ends it), so that forgetting a job costs the nodes it
   * heads, not every node headed in the pass: a job taken is forgotten once per pass, and a large
   * pass heads most nodes. A job's first node is valid in the pass {@link #firstHeadedPass} holds.
   */
  private final int[] firstHeaded;

  private final int[] firstHeadedPass;
  private final int[] nextHeaded;
  private final int[] previousHeaded;
  private int passNumber = 1;

  /** Per namespace number, its budget head, valid in the pass {@link #budgetHeadPass} holds. */
  private final PreparedJob[] budgetHeads;

  private final int[] budgetHeadPass;

  private Optional<PreparedJob> starvingHead;

  /**
   * @param touch brings a job's priority and starving up to the pass's time
   * @param decided whether a job was decided in this pass already
   */
  PassCandidates(
      NodePool pool,
      Reservations reservations,
      WaitingRoom room,
      Consumer<PreparedJob> touch,
      Predicate<PreparedJob> decided,
      int jobs) {
    this.pool = pool;
    this.reservations = reservations;
    this.room = room;
    this.touch = touch;
    this.decided = decided;
    this.nodeHeads = new PreparedJob[pool.size()];
    this.nodeHeadPass = new int[pool.size()];
    this.budgetHeads = new PreparedJob[room.namespaces()];
    this.budgetHeadPass = new int[room.namespaces()];
    this.firstHeaded = new int[jobs];
    this.firstHeadedPass = new int[jobs];
    this.nextHeaded = new int[pool.size()];
    this.previousHeaded = new int[pool.size()];
  }

  void startPass() {
    passNumber++;
    starvingHead = null;
  }

  PreparedJob nodeHead(int node) {
    if (nodeHeadPass[node] != passNumber) {
      PreparedJob head = fitsNode(node);
      nodeHeads[node] = head;
      nodeHeadPass[node] = passNumber;
      if (head != null) {
        link(head.index, node);
      }
    }
    return nodeHeads[node];
  }

  /** Puts {@code node} first in the list of the nodes job {@code job} heads. */
  private void link(int job, int node) {
    int first = firstHeadedPass[job] == passNumber ? firstHeaded[job] : -1;
    nextHeaded[node] = first;
    previousHeaded[node] = -1;
    if (first >= 0) {
      previousHeaded[first] = node;
    }
    firstHeaded[job] = node;
    firstHeadedPass[job] = passNumber;
  }

  /** Takes {@code node} out of the list of the job that heads it in this pass. */
  private void unlink(int job, int node) {
    int next = nextHeaded[node];
    int previous = previousHeaded[node];
    if (previous >= 0) {
      nextHeaded[previous] = next;
    } else {
      firstHeaded[job] = next;
    }
    if (next >= 0) {
      previousHeaded[next] = previous;
    }
  }

  /** The budget head of the namespace numbered {@code ns}. */
  PreparedJob budgetHead(int ns) {
    if (budgetHeadPass[ns] != passNumber) {
      budgetHeads[ns] = fitsBudget(ns);
      budgetHeadPass[ns] = passNumber;
    }
    return budgetHeads[ns];
  }

  PreparedJob starvingHead() {
    if (starvingHead == null) {
      starvingHead = Optional.ofNullable(firstStarving());
    }
    return starvingHead.orElse(null);
  }

  /** The job left where it was parked: no answer names it any more. */
  void forget(PreparedJob job) {
    if (firstHeadedPass[job.index] == passNumber) {
      for (int node = firstHeaded[job.index]; node >= 0; node = firstHeaded[job.index]) {
        forgetNode(node);
      }
    }
    starvingHead = null;
  }

  /** The node's allocation changed. */
  void forgetNode(int node) {
    if (nodeHeadPass[node] == passNumber && nodeHeads[node] != null) {
      unlink(nodeHeads[node].index, node);
    }
    nodeHeadPass[node] = 0;
    nodeHeads[node] = null;
  }

  /** The budget of the namespace numbered {@code ns}, or who waits for it, changed. */
  void forgetBudget(int ns) {
    budgetHeadPass[ns] = 0;
    budgetHeads[ns] = null;
  }

  /** The first job in pass order parked for capacity that fits the node now, or null. */
  private PreparedJob fitsNode(int node) {
    PreparedJob best = null;
    if (pool.takesOthersWork(node)) {
      long[] free = new long[pool.resourceCount()];
      for (int res = 0; res < free.length; res++) {
        free[res] = pool.othersFree(node, res);
      }
      for (int c = 0; c < room.classes(); c++) {
        best = better(best, room.firstForCapacity(c, free));
      }
    }
    for (PreparedJob job : room.parkedWithOrigin(node)) {
      if (!decided.test(job) && pool.fitsNow(node, job)) {
        best = better(best, job);
      }
    }
    return best;
  }

  private PreparedJob fitsBudget(int ns) {
    long[] left = new long[pool.resourceCount()];
    for (int res = 0; res < left.length; res++) {
      left[res] = reservations.budgetLeft(ns, res);
    }
    PreparedJob best = null;
    for (int c = 0; c < room.classes(); c++) {
      best = better(best, room.firstForBudget(ns, c, left));
    }
    return best;
  }

  /**
   * The oldest parked job of each class, if it is starving now; the first of them in pass order
   * (within a class the oldest starves first).
   */
  private PreparedJob firstStarving() {
    PreparedJob best = null;
    for (int c = 0; c < room.classes(); c++) {
      PreparedJob oldest = room.firstProtectable(c);
      if (oldest != null) {
        touch.accept(oldest);
        if (oldest.starving) {
          best = better(best, oldest);
        }
      }
    }
    return best;
  }

  private PreparedJob better(PreparedJob best, PreparedJob candidate) {
    if (candidate == null) {
      return best;
    }
    touch.accept(candidate);
    return best == null || AdmissionRules.PASS_ORDER.compare(candidate, best) < 0
        ? candidate
        : best;
  }
}
