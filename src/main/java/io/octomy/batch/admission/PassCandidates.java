package io.octomy.batch.admission;

import java.util.Arrays;
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

  /** The nodes whose head was found in this pass (some perhaps forgotten since). */
  private int[] headed = new int[16];

  private int headedCount;
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
      Predicate<PreparedJob> decided) {
    this.pool = pool;
    this.reservations = reservations;
    this.room = room;
    this.touch = touch;
    this.decided = decided;
    this.nodeHeads = new PreparedJob[pool.size()];
    this.nodeHeadPass = new int[pool.size()];
    this.budgetHeads = new PreparedJob[room.namespaces()];
    this.budgetHeadPass = new int[room.namespaces()];
  }

  void startPass() {
    passNumber++;
    headedCount = 0;
    starvingHead = null;
  }

  PreparedJob nodeHead(int node) {
    if (nodeHeadPass[node] != passNumber) {
      nodeHeads[node] = fitsNode(node);
      nodeHeadPass[node] = passNumber;
      if (headedCount == headed.length) {
        headed = Arrays.copyOf(headed, headedCount * 2);
      }
      headed[headedCount++] = node;
    }
    return nodeHeads[node];
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
    for (int i = 0; i < headedCount; i++) {
      int node = headed[i];
      if (nodeHeads[node] == job) {
        forgetNode(node);
      }
    }
    starvingHead = null;
  }

  /** The node's allocation changed. */
  void forgetNode(int node) {
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
    return best == null || AdmissionPass.PASS_ORDER.compare(candidate, best) < 0 ? candidate : best;
  }
}
