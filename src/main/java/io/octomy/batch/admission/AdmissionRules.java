package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.PriorityPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The rules of one admission pass, from a {@link Snapshot} to an {@link AdmissionResult}; what only
 * makes it fast lives elsewhere: the memory of earlier passes ({@link PassRecall}), the node
 * indexes and placement ({@link PassState}, {@link KeptNodes}), the sentences ({@link
 * DecisionWords}), and what a forecast asks of it ({@link SimulatedPass}).
 *
 * <p>Queued jobs are considered in order of effective priority (highest first: the service class's
 * tier, aged by the time queued, plus the queue's fair-share term), ties by queuedAt (oldest
 * first), then namespace and name. Each is checked, in this order, for: an invalid spec, a
 * dependency cycle, a hold ({@code suspend}: reason Held, nothing else looked at), a retry's
 * back-off (BackingOff, until {@code notBefore}), the rest of its dependencies, locks, its group
 * cap, its namespace budget, its BatchQueue (a namespace two queues claim, a cycle of parents, the
 * queue's max), what the protected starving job needs, and capacity (on the nodes its and its
 * queues' nodeSelectors select, a gang's replicas all at once, off the node held for the starving
 * job and off the nodes kept for queues reclaiming their min: HeldForStarvingJob,
 * HeldForQueueMinimum). The first check that fails decides. An admission is reserved (node
 * allocation, locks, group slot, budget, queue usage) before the next job is looked at, so one pass
 * never overcommits anything. Admitted and Running jobs of the snapshot only hold what they
 * requested; they get no decision.
 *
 * <p>The pass reads no clock but {@link Snapshot#now()}, uses whole-number arithmetic only (but for
 * the rounded fair-share term of a queue's jobs' priority), and gives the same result for the same
 * snapshot whatever the order of its lists.
 */
final class AdmissionRules implements SimulatedPass {

  /** Effective priority (highest first), then queuedAt (oldest first), then namespace/name. */
  static final Comparator<PreparedJob> PASS_ORDER =
      (a, b) -> {
        int c = Long.compare(b.effectivePriority, a.effectivePriority);
        if (c == 0) {
          c = a.queuedAt.compareTo(b.queuedAt);
        }
        return c != 0 ? c : a.key.compareTo(b.key);
      };

  private final PassRecall recall;
  private final PassState state;
  private final DecisionWords words;

  AdmissionRules(Snapshot snapshot, PassRecall recall) {
    this.recall = recall;
    this.state = new PassState(snapshot, recall.resources(), recall.scopes(), this::keepsRoomFor);
    this.words = new DecisionWords(state);
  }

  /** Steps 1 to 4: everything before the ordered decisions. */
  void prepare() {
    // 1. Prepare every job: positive requests as arrays, lock keys, priority and starving.
    // 2. Count what Admitted and Running jobs hold: node allocation, locks, group slots, budget,
    //    queue usage. A holder whose node is unknown still holds all but the node allocation.
    Instant now = state.snapshot().now();
    PriorityPolicy priority = state.policy().priority();
    List<JobView> views = state.snapshot().jobs();
    for (int index = 0; index < views.size(); index++) {
      JobReading reading = recall.read(index, views.get(index));
      PreparedJob job = state.add(index, reading);
      if (reading.phase == JobPhase.Queued) {
        // A held job ages like any other, so it keeps its place when released, but it never
        // starves: it takes no part in the pass, so nothing is held back for it.
        job.rank(
            Priorities.effective(priority, job.serviceClass, job.queuedAt, now),
            !reading.held
                && !backingOff(reading)
                && Priorities.starving(priority, job.queuedAt, now));
      } else if (reading.phase.holdsReservation()) {
        state.countHolder(job);
      }
    }
    // 2b. Each queue's fair-share term, from what the queues hold now, added to the priority of
    //     its Queued jobs.
    state.addFairShares();
    recall.indexNodes(state.pool());
    // 3. Resolve every dependency at once: waits, transitive skips and cycles.
    state.resolveDependencies();
    // 4. Order by effective priority, then queuedAt, then namespace/name.
    state.order(recall.inLastOrder(state.queued()));
  }

  /**
   * Step 5: decides each job in order, reserving every admission before the next job; {@code
   * atTurn} (or null) is called with each job at its turn, before it is decided.
   */
  AdmissionResult decideAll(BiConsumer<PreparedJob, DependencyVerdict> atTurn) {
    List<PreparedJob> queued = state.queued();
    QueueMinimumHolds minimumHolds = state.minimumHolds();
    PassDecisions decisions =
        new PassDecisions(state.indexByKey(), state.jobs().size(), queued.size());
    List<Admission> admissions = new ArrayList<>();
    if (minimumHolds != null) {
      minimumHolds.start(queued);
    }
    for (PreparedJob job : queued) {
      DependencyVerdict verdict = state.dependencies().verdict(job.index);
      if (atTurn != null) {
        atTurn.accept(job, verdict);
      }
      Decision decision = decideOne(job, verdict);
      if (minimumHolds != null) {
        minimumHolds.decided(job, decision);
      }
      decisions.add(job, decision);
      if (decision instanceof Decision.Admit admit) {
        admissions.add(Admission.of(job.key, admit));
      }
    }
    return new AdmissionResult(decisions, admissions, state.guard().hold());
  }

  /** Decides one job against the state left by the jobs before it; an admission is reserved. */
  Decision decideOne(PreparedJob job, DependencyVerdict dependency) {
    Reservations reservations = state.reservations();
    // 5.1 Invalid spec: rejected with the validation sentences.
    if (!job.problems.isEmpty()) {
      return new Decision.Reject(Reason.InvalidSpec, String.join(" ", job.problems));
    }
    // 5.1b Held (spec.suspend): out of the pass, before any other gate; it takes and counts
    // nothing. A cycle, like an invalid spec, is the manifest's own fault that no release can
    // mend: it rejects a held job too, so dependants skipped for it name a rejected job.
    boolean cycle = dependency.kind() == DependencyVerdict.Kind.CYCLE;
    if (job.reading.held && !cycle) {
      return waiting(job, Reason.Held, words.held(job), List.of());
    }
    // 5.1c Backing off: a failed run's retry waits until its back-off ends, taking nothing.
    if (backingOff(job.reading) && !cycle) {
      return waiting(job, Reason.BackingOff, words.backingOff(job), List.of());
    }
    // 5.2 Dependencies: cycle, failed ancestor, or not succeeded yet.
    switch (dependency.kind()) {
      case CYCLE:
        return new Decision.Reject(Reason.DependencyCycle, dependency.message());
      case SKIP:
        return new Decision.Skip(dependency.ancestor(), dependency.message());
      case WAIT:
        return waiting(
            job, Reason.WaitingForDependency, words.dependency(dependency), dependency.waitingOn());
      default:
        break;
    }
    // 5.3 Locks: every held key is listed with its holder.
    List<WaitingOn> blocking = reservations.blockingLocks(job);
    if (!blocking.isEmpty()) {
      return waiting(job, Reason.WaitingForLock, words.locks(blocking), blocking);
    }
    // 5.4 Group cap (namespace-scoped, like locks).
    List<String> groupHolders = reservations.fullGroupHolders(job);
    if (!groupHolders.isEmpty() || (job.groupId >= 0 && reservations.groupCap(job) <= 0)) {
      List<WaitingOn> on = groupHolders.stream().map(h -> new WaitingOn(job.group(), h)).toList();
      return waiting(job, Reason.WaitingForGroup, words.group(job, groupHolders), on);
    }
    // 5.5 Namespace budget: requests of admitted and running jobs of the namespace.
    if (!reservations.fitsBudgetNow(job)) {
      return waiting(job, Reason.WaitingForBudget, words.budget(job), List.of());
    }
    // 5.5b Its queue: a namespace two queues claim, a cycle of parents, then the max of its queue
    //      and of every queue above it (reserved with each admission, as the budget is).
    if (job.queue == QueueTree.CONFLICT) {
      return waiting(job, Reason.QueueConflict, words.queueConflict(job), List.of());
    }
    if (state.queueTree().cycle(job.queue) != null) {
      return waiting(job, Reason.QueueCycle, words.queueCycle(job), List.of());
    }
    if (state.queueLedger() != null && !state.queueLedger().fitsMax(job)) {
      return waiting(job, Reason.WaitingForQueueMax, words.queueMax(job), List.of());
    }
    // 5.6 What the protected starving job will need besides capacity: its locks, the last slot of
    //     its group, what is left of its namespace's budget. Taken by a lower-priority job now,
    //     they would turn its wait into another kind, and it would wait again.
    String contested = state.guard().contested(job);
    if (contested != null) {
      return waiting(job, Reason.HeldForStarvingJob, words.contested(contested), List.of());
    }
    // 5.7 Capacity, on the nodes its and its queues' selectors select, keeping the node held for
    //     a starving job for it, and the nodes kept for the queues reclaiming their min for them (a
    //     reclaiming queue's head goes to its kept node).
    List<QueueMinimumHolds.MinimumHold> minimums =
        state.minimumHolds() == null ? List.of() : state.minimumHolds().against(job);
    return job.gang() ? decideGang(job, minimums) : decidePlacement(job, minimums);
  }

  /** 5.7 for a job of one replica: placed and reserved on its node, or the reason it waits. */
  private Decision decidePlacement(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    NodePool pool = state.pool();
    int excluded = state.guard().excludedNodeFor(job);
    int node = state.keptNodes().placeBeside(job, excluded, minimums);
    if (node >= 0) {
      NodeMode mode = pool.modeFor(node, job);
      state.admit(job, node);
      return new Decision.Admit(pool.name(node), mode, job.effectivePriority, job.starving);
    }
    if (!state.placement().fitsSomeFullOffer(job)) {
      return waiting(job, Reason.NoNodeFits, words.noNodeFits(job), List.of());
    }
    if (job.deferrable && job.requestsNothing()) {
      // It fits some node's offer and is held for nobody: every node it could go to is busy.
      return waiting(job, Reason.BestEffortDeferred, words.bestEffortDeferred(job), List.of());
    }
    if (excluded >= 0 && state.keptNodes().fitsAnyKeptForStarving(job)) {
      return waiting(job, Reason.HeldForStarvingJob, words.heldForStarvingJob(), List.of());
    }
    QueueMinimumHolds.MinimumHold hold = state.keptNodes().fitsKeptForMinimum(job, minimums);
    if (hold != null) {
      return waiting(job, Reason.HeldForQueueMinimum, words.heldForQueueMinimum(hold), List.of());
    }
    return waiting(job, Reason.WaitingForCapacity, words.waitingForCapacity(job), List.of());
  }

  /**
   * 5.7 for a gang: every replica placed at once and reserved on its node, or none; a wait names
   * the replicas the nodes hold now or could ever hold.
   */
  private Decision decideGang(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    GangPlacement gangs = state.gangs();
    int[] avoided = state.keptNodes().gangAvoids(job, minimums);
    int[] nodes = gangs.place(job, avoided);
    if (nodes != null) {
      NodeMode mode = null;
      List<String> names = new ArrayList<>(nodes.length);
      for (int node : nodes) {
        NodeMode here = state.pool().modeFor(node, job);
        mode = mode == null || here.ordinal() < mode.ordinal() ? here : mode;
        names.add(state.pool().name(node));
      }
      state.admitGang(job, nodes);
      return new Decision.Admit(names.get(0), mode, job.effectivePriority, job.starving, names);
    }
    if (!gangs.fitsWholeSomeday(job)) {
      return waiting(job, Reason.NoNodeFits, words.gangNoNodeFits(job), List.of());
    }
    if (job.deferrable && job.requestsNothing()) {
      return waiting(job, Reason.BestEffortDeferred, words.bestEffortDeferred(job), List.of());
    }
    // It fits with the kept nodes: held for the starving job when they are what stops it, else
    // for the queues reclaiming their min.
    if (avoided.length > 0 && gangs.place(job, new int[0]) != null) {
      boolean starvingStopsIt = gangs.place(job, KeptNodes.minimumNodes(minimums)) != null;
      return starvingStopsIt || minimums.isEmpty()
          ? waiting(job, Reason.HeldForStarvingJob, words.heldForStarvingJob(), List.of())
          : waiting(
              job,
              Reason.HeldForQueueMinimum,
              words.heldForQueueMinimum(minimums.get(0)),
              List.of());
    }
    return waiting(job, Reason.WaitingForCapacity, words.gangWaitingForCapacity(job), List.of());
  }

  /**
   * 5.8 A wait. A starving job's wait may make it the protected one (the first starving job in pass
   * order whose wait can end, see {@link StarvationGuard}); its Starving note says what is held
   * back for it, or why nothing can be.
   */
  private Decision.Wait waiting(
      PreparedJob job, Reason reason, String message, List<WaitingOn> on) {
    String starvation = null;
    if (job.starving) {
      message += words.capacityNote(state.guard().consider(job, reason));
      starvation = words.starvationNote(job, reason);
    }
    return new Decision.Wait(reason, message, on, job.effectivePriority, starvation);
  }

  /**
   * Whether the job, at its turn now, would pass every gate before capacity and fit some node's
   * full offer: a job a queue reclaiming its min keeps room for.
   */
  private boolean keepsRoomFor(PreparedJob job) {
    Reservations reservations = state.reservations();
    return job.problems.isEmpty()
        && !job.reading.held
        && !backingOff(job.reading)
        && state.dependencies().verdict(job.index).kind() == DependencyVerdict.Kind.READY
        && reservations.blockingLocks(job).isEmpty()
        && reservations.fullGroupHolders(job).isEmpty()
        && (job.groupId < 0 || reservations.groupCap(job) > 0)
        && reservations.fitsBudgetNow(job)
        && job.queue >= 0
        && state.queueTree().cycle(job.queue) == null
        && state.queueLedger().fitsMax(job)
        && state.placement().fitsSomeFullOffer(job);
  }

  /** Whether a retry's back-off still runs at the time this pass decides at. */
  private boolean backingOff(JobReading reading) {
    return reading.notBefore != null && state.decidingAt().isBefore(reading.notBefore);
  }

  @Override
  public PassState state() {
    return state;
  }

  @Override
  public void withoutSentences() {
    words.off();
  }

  @Override
  public Decision decideReady(PreparedJob job) {
    return decideOne(job, DependencyVerdict.READY);
  }
}
