package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * The holds of the queues reclaiming their {@code min} in one pass. A queue (with its subtree)
 * reclaims while it holds less than its min of some resource and has a Queued job that requests
 * that resource and would pass every gate before capacity (its head: the first such job in pass
 * order). A node is kept for the head: the node it goes to when it fits now, else the node where it
 * would fit soonest (as for a starving job). Jobs outside the queue's subtree may not take what the
 * head needs there, whatever their priority; they wait HeldForQueueMinimum when that node was their
 * only room. Nothing running is touched: the queue gets its min back as capacity frees up.
 *
 * <p>A min counts only up to what the ready nodes offer now, so a min larger than the pool asks for
 * the whole pool and no more. The head of one reclaiming queue is never held by another queue's
 * min, so mins that together exceed the pool never stop every queue at once: their heads compete by
 * priority. When the head is admitted the next job of the queue becomes the head, while the queue
 * is still below its min; when it waits at a gate before capacity instead, the hold moves on to the
 * next job too.
 */
final class QueueMinimumHolds {

  /** One reclaiming queue: its head job, the node kept for it, and where to look for the next. */
  static final class MinimumHold {
    final int queue;
    PreparedJob head;
    int node = -1;
    private int cursor;

    /** The positions in pass order of the Queued jobs of the queue's subtree, in that order. */
    private int[] members = new int[16];

    private int memberCount;

    /** Per resource id: what the queue's waiting jobs that could start request together. */
    private long[] waiting;

    private MinimumHold(int queue) {
      this.queue = queue;
    }

    private void add(int position) {
      if (memberCount == members.length) {
        members = Arrays.copyOf(members, memberCount * 2);
      }
      members[memberCount++] = position;
    }
  }

  private final QueueTree tree;
  private final QueueLedger ledger;
  private final NodePool pool;
  private final Placement placement;
  private final ResourceIndex resources;
  private final Predicate<PreparedJob> passesGatesBeforeCapacity;

  /** Per queue: per resource id the min as counted now (0 where none); null for no min. */
  private final long[][] min;

  private List<PreparedJob> order = List.of();
  private final List<MinimumHold> holds = new ArrayList<>();

  QueueMinimumHolds(
      QueueTree tree,
      QueueLedger ledger,
      NodePool pool,
      Placement placement,
      ResourceIndex resources,
      Predicate<PreparedJob> passesGatesBeforeCapacity) {
    this.tree = tree;
    this.ledger = ledger;
    this.pool = pool;
    this.placement = placement;
    this.resources = resources;
    this.passesGatesBeforeCapacity = passesGatesBeforeCapacity;
    this.min = new long[tree.size()][];
    for (int q = 0; q < tree.size(); q++) {
      QueueView view = tree.view(q);
      if (view == null || view.min().isEmpty() || tree.cycle(q) != null) {
        continue;
      }
      long[] counted = new long[resources.count()];
      boolean any = false;
      for (var entry : view.min().entrySet()) {
        int id = resources.id(entry.getKey());
        if (id >= 0 && id < pool.resourceCount()) {
          counted[id] = Math.max(0, Math.min(entry.getValue(), pool.readyOthersOffer(id)));
          any |= counted[id] > 0;
        }
      }
      min[q] = any ? counted : null;
    }
  }

  /**
   * Finds each reclaiming queue's head in {@code passOrder}, before the pass decides anything. One
   * walk of the order finds every queue's jobs, and asks once of each whether it could start now.
   */
  void start(List<PreparedJob> passOrder) {
    order = passOrder;
    holds.clear();
    MinimumHold[] byQueue = new MinimumHold[min.length];
    for (int q = 0; q < min.length; q++) {
      if (min[q] != null) {
        byQueue[q] = new MinimumHold(q);
        byQueue[q].waiting = new long[min[q].length];
      }
    }
    for (int i = 0; i < order.size(); i++) {
      PreparedJob job = order.get(i);
      int passes = -1; // not asked yet
      for (int q : tree.chain(job.queue)) {
        MinimumHold hold = byQueue[q];
        if (hold == null) {
          continue;
        }
        hold.add(i);
        if (passes < 0) {
          passes = passesGatesBeforeCapacity.test(job) ? 1 : 0;
        }
        if (passes == 1) {
          for (int k = 0; k < job.resourceIds.length; k++) {
            int id = job.resourceIds[k];
            hold.waiting[id] = QuantityMath.add(hold.waiting[id], job.totals[k]);
          }
        }
      }
    }
    for (MinimumHold hold : byQueue) {
      if (hold != null) {
        advance(hold);
        if (hold.head != null) {
          holds.add(hold);
        }
      }
    }
  }

  /** No holds for the rest of this pass and the passes after it (a forecast's simulated ones). */
  void stop() {
    order = List.of();
    holds.clear();
  }

  /** The holds {@code job} would break: each a node it may not take. Empty for most jobs. */
  List<MinimumHold> against(PreparedJob job) {
    if (holds.isEmpty() || job.requestsNothing() || isHead(job)) {
      return List.of();
    }
    List<MinimumHold> against = null;
    for (MinimumHold hold : holds) {
      if (!tree.within(job.queue, hold.queue) && takesWhatHeadNeeds(job, hold)) {
        if (against == null) {
          against = new ArrayList<>(2);
        }
        against.add(hold);
      }
    }
    return against == null ? List.of() : against;
  }

  /** The node kept for {@code job} when it is a head and fits there now, else -1. */
  int keptFor(PreparedJob job) {
    for (MinimumHold hold : holds) {
      if (hold.head == job && pool.fitsNow(hold.node, job)) {
        return hold.node;
      }
    }
    return -1;
  }

  /** After each decision: a head decided, or a queue's admission, may move or end its hold. */
  void decided(PreparedJob job, Decision decision) {
    if (holds.isEmpty()) {
      return;
    }
    boolean admitted = decision instanceof Decision.Admit;
    for (int i = holds.size() - 1; i >= 0; i--) {
      MinimumHold hold = holds.get(i);
      if (admitted && tree.within(job.queue, hold.queue)) {
        for (int k = 0; k < job.resourceIds.length; k++) {
          int id = job.resourceIds[k];
          hold.waiting[id] = Math.max(0, hold.waiting[id] - job.totals[k]);
        }
      }
      boolean waitsForRoom =
          decision.reason() == Reason.WaitingForCapacity
              || decision.reason() == Reason.HeldForStarvingJob;
      if ((hold.head == job && !(waitsForRoom && !admitted))
          || (admitted && tree.within(job.queue, hold.queue) && !reclaims(hold.queue))) {
        advance(hold);
        if (hold.head == null) {
          holds.remove(i);
        }
      }
    }
  }

  /** The sentence of a job held off the node kept for {@code hold}'s head. */
  String words(MinimumHold hold) {
    int q = hold.queue;
    QueueView view = tree.view(q);
    String holding = "";
    for (int id = 0; id < min[q].length && holding.isEmpty(); id++) {
      if (min[q][id] > 0 && ledger.used(q, id) < min[q][id]) {
        String name = resources.name(id);
        long spec = view.min().get(name);
        holding =
            "it holds "
                + ledger.used(q, id)
                + " of its min of "
                + spec
                + " "
                + name
                + (spec > min[q][id]
                    ? " (counted as the " + min[q][id] + " the ready nodes offer now)"
                    : "");
      }
    }
    return "held for queue "
        + tree.name(q)
        + ", which is reclaiming its min: "
        + holding
        + ", so node "
        + pool.name(hold.node)
        + ", where this job would fit, is kept for its job "
        + hold.head.key
        + "; capacity that frees up there goes to "
        + tree.name(q)
        + " first.";
  }

  /** Name of the queue of a hold. */
  String queueName(MinimumHold hold) {
    return tree.name(hold.queue);
  }

  private boolean isHead(PreparedJob job) {
    for (MinimumHold hold : holds) {
      if (hold.head == job) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code job}, placed on the kept node, would leave less there than the queue keeps of a
   * resource the head requests: the head's request, or more where the queue is short of its min, up
   * to its shortfall and to what its waiting jobs that could start request together (so that two
   * runs of the queue ending at once are both got back). While the head does not fit there now, any
   * request of one of its resources does.
   */
  private boolean takesWhatHeadNeeds(PreparedJob job, MinimumHold hold) {
    PreparedJob head = hold.head;
    long[] counted = min[hold.queue];
    for (int k = 0; k < head.resourceIds.length; k++) {
      int id = head.resourceIds[k];
      long request = job.quantity(id);
      if (request <= 0) {
        continue;
      }
      long shortfall = Math.max(0, counted[id] - ledger.used(hold.queue, id));
      long kept = Math.max(head.quantities[k], Math.min(shortfall, hold.waiting[id]));
      if (pool.freeFor(hold.node, head, id) < QuantityMath.add(kept, request)) {
        return true;
      }
    }
    return false;
  }

  /** The next head of the queue after the cursor, and its node; none once it holds its min. */
  private void advance(MinimumHold hold) {
    hold.head = null;
    hold.node = -1;
    if (!reclaims(hold.queue)) {
      return;
    }
    while (hold.cursor < hold.memberCount) {
      PreparedJob job = order.get(hold.members[hold.cursor++]);
      if (requestsWhatIsShort(job, hold.queue) && passesGatesBeforeCapacity.test(job)) {
        int node = placement.place(job, -1);
        hold.node = node >= 0 ? node : placement.soonest(job);
        if (hold.node >= 0) {
          hold.head = job;
          return;
        }
      }
    }
  }

  /** Whether the queue holds less than its min of some resource. */
  private boolean reclaims(int queue) {
    long[] counted = min[queue];
    for (int id = 0; counted != null && id < counted.length; id++) {
      if (counted[id] > 0 && ledger.used(queue, id) < counted[id]) {
        return true;
      }
    }
    return false;
  }

  private boolean requestsWhatIsShort(PreparedJob job, int queue) {
    for (int k = 0; k < job.resourceIds.length; k++) {
      int id = job.resourceIds[k];
      if (min[queue][id] > 0 && ledger.used(queue, id) < min[queue][id]) {
        return true;
      }
    }
    return false;
  }
}
