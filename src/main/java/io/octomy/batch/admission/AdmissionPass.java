package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ServiceClass;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The admission pass: one pure function from a {@link Snapshot} to an {@link AdmissionResult}.
 *
 * <p>Queued jobs are considered in order of effective priority (highest first), ties by queuedAt
 * (oldest first), then namespace and name. Each is checked, in this order, for: an invalid spec, a
 * dependency cycle, a hold ({@code suspend}: reason Held, nothing else looked at), a retry's
 * back-off (BackingOff, until {@code notBefore}), the rest of its dependencies, locks, its group
 * cap, its namespace budget, its BatchQueue (a namespace two queues claim, a cycle of parents, the
 * queue's max), what the protected starving job needs, and capacity (on the nodes its nodeSelector
 * selects, off the node held for the starving job and off the nodes kept for queues reclaiming
 * their min, see {@link QueueMinimumHolds}: HeldForStarvingJob, HeldForQueueMinimum). The first
 * check that fails decides. An admission is reserved (node allocation, locks, group slot, budget,
 * queue usage) before the next job is looked at, so one pass never overcommits anything. Admitted
 * and Running jobs of the snapshot only hold what they requested; they get no decision.
 *
 * <p>The pass reads no clock but {@link Snapshot#now()}, uses whole-number arithmetic only (but for
 * the rounded fair-share term of a queue's jobs' priority), and gives the same result for the same
 * snapshot whatever the order of its lists.
 */
public final class AdmissionPass {

  /** Effective priority (highest first), then queuedAt (oldest first), then namespace/name. */
  static final Comparator<PreparedJob> PASS_ORDER =
      (a, b) -> {
        int c = Long.compare(b.effectivePriority, a.effectivePriority);
        if (c == 0) {
          c = a.queuedAt.compareTo(b.queuedAt);
        }
        return c != 0 ? c : a.key.compareTo(b.key);
      };

  private final Snapshot snapshot;
  private final Policy policy;
  private final ResourceIndex resources;
  private final ScopeNumbers scopes;
  private final List<PreparedJob> jobs = new ArrayList<>();
  private List<PreparedJob> queued = new ArrayList<>();
  private final PassMemory memory;

  /** Per snapshot index: what an earlier pass read of the same view, or null. */
  private final JobReading[] kept;

  /** Per snapshot index: what this pass read of the job, for the next pass's memory. */
  private final JobReading[] readings;

  /** Per snapshot index: the view's place in the last pass's order, or -1. */
  private final int[] lastRanks;

  private final KeyIndex indexByKey;

  /** Whether the node orders as built are kept for the next pass ({@link #builtNodeOrders}). */
  private boolean keepNodeOrders;

  private NodeOrders builtNodeOrders;
  private final NodePool pool;
  private final Placement placement;
  private final GangPlacement gangs;
  private final MostFreeNotes mostFreeNotes;
  private final Reservations reservations;
  private final QueueTree queueTree;

  /** The labels each queue's jobs must find on a node; null while the snapshot has no queue. */
  private final QueueSelectors queueSelectors;

  /** What each queue holds against its max; null while the snapshot has no queue. */
  private final QueueLedger queueLedger;

  private FairShare fairShare;

  /** The holds of queues reclaiming their min; null while the snapshot has no queue. */
  private final QueueMinimumHolds minimumHolds;

  private StarvationGuard guard;
  private DependencyGraph dependencies;

  /**
   * Whether decisions carry their sentences. The passes a forecast simulates after the next one
   * read only a decision's reason, what it waits on and where it is admitted, and never show its
   * sentences: they are decided without them ({@link #withoutSentences}).
   */
  private boolean worded = true;

  /** A request shape seen from a node's own work ({@code origin}) or from others' (-1). */
  private record ShapeFromOrigin(RequestShape shape, int origin) {}

  /**
   * The no-node-fits sentence of each shape and origin this pass has worded. It reads only the
   * job's shape and origin and the nodes' offers, modes and readiness, which no decision of a pass
   * changes: the many identical jobs of an array share one sentence instead of building it each.
   */
  private final Map<ShapeFromOrigin, String> noNodeFitsWords = new HashMap<>();

  AdmissionPass(Snapshot snapshot) {
    this(snapshot, PassMemory.empty());
  }

  private AdmissionPass(Snapshot snapshot, PassMemory memory) {
    this.snapshot = snapshot;
    this.policy = snapshot.policy();
    this.memory = memory;
    this.lastRanks = new int[snapshot.jobs().size()];
    this.kept = memory.readingsFor(snapshot, lastRanks);
    this.readings = new JobReading[kept.length];
    this.resources = memory.resourcesFor(snapshot, kept);
    this.scopes = memory.scopesFor(kept);
    this.pool = new NodePool(snapshot, resources);
    this.placement = new Placement(pool);
    this.gangs = placement.gangs();
    this.mostFreeNotes = new MostFreeNotes(pool);
    this.reservations = new Reservations(policy, resources, scopes);
    this.queueTree = new QueueTree(snapshot.queues());
    this.queueLedger = queueTree.active() ? new QueueLedger(queueTree, resources) : null;
    this.queueSelectors = queueTree.active() ? new QueueSelectors(queueTree) : null;
    if (queueLedger != null) {
      reservations.countQueues(queueLedger);
    }
    this.minimumHolds =
        queueLedger == null
            ? null
            : new QueueMinimumHolds(
                queueTree,
                queueLedger,
                pool,
                placement,
                resources,
                this::passesGatesBeforeCapacity);
    this.guard = newGuard();
    this.indexByKey = new KeyIndex(snapshot.jobs().size());
  }

  /** Decides every Queued job of the snapshot. */
  public static AdmissionResult decide(Snapshot snapshot) {
    AdmissionPass pass = new AdmissionPass(snapshot);
    pass.prepare();
    return pass.decideAll(null);
  }

  /**
   * Decides every Queued job of the snapshot as {@link #decide(Snapshot)} does, taking from {@code
   * memory} what an earlier pass read of the jobs whose views have not changed since (see {@link
   * PassMemory}), and returns the memory for the next pass with the result.
   */
  public static RememberedPass decide(Snapshot snapshot, PassMemory memory) {
    AdmissionPass pass = new AdmissionPass(snapshot, memory);
    pass.keepNodeOrders = true;
    pass.prepare();
    AdmissionResult result = pass.decideAll(null);
    return new RememberedPass(
        result,
        PassMemory.of(
            pass.resources,
            pass.scopes,
            pass.readings,
            pass.queued,
            pass.indexByKey,
            pass.builtNodeOrders),
        QueueStandings.of(pass));
  }

  /** The fair-share terms and shares from the queues' holdings now, given which have work. */
  FairShare newFairShare(boolean[] hasWork) {
    double meanLife = policy.usageHalfLife().toMillis() / 1000.0 / Math.log(2);
    return new FairShare(
        queueTree,
        queueLedger,
        pool,
        resources,
        hasWork,
        policy.priority().fairShareWeight(),
        meanLife);
  }

  /**
   * Decides every Queued job of the snapshot, and evaluates every gate of the listed jobs at their
   * turn in the pass (after the admissions of the jobs before them), without changing a decision.
   */
  public static Inspection inspect(Snapshot snapshot, Set<JobKey> jobs) {
    AdmissionPass pass = new AdmissionPass(snapshot);
    pass.prepare();
    Map<JobKey, GateReport> reports = new LinkedHashMap<>();
    AdmissionResult result = pass.decideAll(pass.inspector(jobs, reports));
    return new Inspection(result, reports);
  }

  /**
   * The next pass, the gates of the listed jobs at their turn in it (as {@link #inspect}), and the
   * passes after it simulated as jobs end when {@code runTimes} expects: when each Queued job is
   * expected to be admitted (see {@link FuturePasses} for what is assumed).
   */
  public static Forecast forecast(Snapshot snapshot, RunTimeModel runTimes, Set<JobKey> inspect) {
    return forecast(snapshot, PassMemory.empty(), runTimes, inspect);
  }

  /**
   * {@link #forecast(Snapshot, RunTimeModel, Set)} with its next pass taking from {@code memory}
   * what an earlier pass read (see {@link #decide(Snapshot, PassMemory)}); the forecast is the
   * same, and the memory is left as it is.
   */
  public static Forecast forecast(
      Snapshot snapshot, PassMemory memory, RunTimeModel runTimes, Set<JobKey> inspect) {
    UncreatedItems.Expanded world = UncreatedItems.expand(snapshot);
    AdmissionPass pass = new AdmissionPass(world.world(), memory);
    pass.prepare();
    Map<JobKey, GateReport> reports = new LinkedHashMap<>();
    AdmissionResult next =
        pass.decideAll(inspect.isEmpty() ? null : pass.inspector(inspect, reports));
    return new FuturePasses(pass, runTimes, world.itemsOf())
        .run(next, reports)
        .withItemsToCome(world.added());
  }

  private TurnListener inspector(Set<JobKey> jobs, Map<JobKey, GateReport> reports) {
    GateInspector inspector = new GateInspector(this);
    int[] position = {0};
    return (job, verdict) -> {
      position[0]++;
      if (jobs.contains(job.key)) {
        reports.put(job.key, inspector.report(job, verdict, position[0]));
      }
    };
  }

  /** Called with each Queued job at its turn, before it is decided. */
  interface TurnListener {
    void turn(PreparedJob job, DependencyVerdict verdict);
  }

  private StarvationGuard newGuard() {
    return new StarvationGuard(
        pool, placement, reservations, resources, policy.priority().starvationAfter());
  }

  /** Steps 1 to 4: everything before the ordered decisions. */
  void prepare() {
    // 1. Prepare every job: positive requests as arrays, lock keys, priority and starving. What
    //    was read of a view an earlier pass saw is taken from the memory.
    // 2. Count what Admitted and Running jobs hold: node allocation, locks, group slots, budget.
    //    A holder whose node is unknown still holds its locks, group slot and budget.
    int n = snapshot.jobs().size();
    boolean[] invalid = new boolean[n];
    boolean[] hasAfter = new boolean[n];
    JobPhase[] phases = new JobPhase[n];
    // Per queue: whether a job of its own (not below it) waits unheld or holds a reservation.
    boolean[] worksHere = queueLedger == null ? null : new boolean[queueTree.size()];
    for (JobView view : snapshot.jobs()) {
      int index = jobs.size();
      JobReading known = kept[index];
      JobReading reading = known != null ? known : new JobReading(view, resources, scopes);
      readings[index] = reading;
      PreparedJob job = new PreparedJob(index, reading, snapshot.now());
      if (indexByKey.putIfAbsent(job.key, reading.keyHash, index) >= 0) {
        throw new IllegalArgumentException("snapshot lists job " + job.key + " twice");
      }
      jobs.add(job);
      if (queueLedger != null) {
        job.queue = queueTree.queueOf(job.namespace, view);
      }
      JobPhase phase = reading.phase;
      if (worksHere != null && job.queue >= 0) {
        worksHere[job.queue] |= phase == JobPhase.Queued ? !reading.held : phase.holdsReservation();
      }
      phases[index] = phase;
      hasAfter[index] = reading.afterKeys.length > 0;
      if (phase == JobPhase.Queued) {
        job.effectivePriority =
            Priorities.effective(policy.priority(), job.serviceClass, job.queuedAt, snapshot.now());
        // A held job ages like any other, so it keeps its place when released, but it never
        // starves: it takes no part in the pass, so nothing is held back for it.
        job.starving =
            !reading.held
                && !backingOff(reading)
                && Priorities.starving(policy.priority(), job.queuedAt, snapshot.now());
        job.deferrable = job.serviceClass == ServiceClass.BestEffort && !job.starving;
        job.origin = pool.indexOf(reading.origin);
        job.placement =
            queueSelectors == null ? reading.ownPlacement : queueSelectors.of(reading, job.queue);
        job.selectable = pool.selectable(job.placement);
        invalid[index] = !job.problems.isEmpty();
        queued.add(job);
      } else if (phase.holdsReservation()) {
        int node = pool.indexOf(reading.node);
        if (job.gang()) {
          countGang(job, node);
        } else if (node >= 0) {
          pool.countExisting(node, job);
        }
        job.reservedOn = node;
        reservations.hold(job);
      }
    }
    reservations.sortExisting();
    if (queueLedger != null) {
      addFairShare(worksHere);
    }
    pool.index(memory.nodeOrders());
    if (keepNodeOrders) {
      builtNodeOrders = pool.freeSpace().orders();
    }

    // 3. Resolve every dependency at once: waits, transitive skips and cycles.
    dependencies = new DependencyGraph(jobs, indexByKey, phases, invalid, hasAfter);

    // 4. Order by effective priority, then queuedAt, then namespace/name; from the last pass's
    //    order when there is one, which the sort then only mends.
    queued = memory.inLastOrder(queued, lastRanks);
    queued.sort(PASS_ORDER);
  }

  /**
   * Counts an Admitted or Running gang's replicas, each on its node (a replica the view names no
   * node for on the job's node, so nothing it may hold goes uncounted).
   */
  private void countGang(PreparedJob job, int first) {
    List<String> names = job.reading.replicaNodes;
    job.replicaNodes = new int[job.replicas];
    for (int i = 0; i < job.replicas; i++) {
      int node = i < names.size() ? pool.indexOf(names.get(i)) : first;
      job.replicaNodes[i] = node;
      if (node >= 0) {
        pool.countExisting(node, job);
      }
    }
  }

  /**
   * Step 2b: the fair-share term of each Queued job's queue, from what the queues hold now, added
   * to its effective priority before the order is made.
   */
  private void addFairShare(boolean[] worksHere) {
    boolean[] hasWork = new boolean[queueTree.size()];
    for (int here = 0; here < hasWork.length; here++) {
      if (worksHere[here]) {
        for (int q : queueTree.chain(here)) {
          hasWork[q] = true;
        }
      }
    }
    fairShare = newFairShare(hasWork);
    for (PreparedJob job : queued) {
      job.fairShare = fairShare.term(job.queue);
      job.effectivePriority = Quantities.add(job.effectivePriority, job.fairShare);
    }
  }

  /** Step 5: decides each job in order, reserving every admission before the next job. */
  AdmissionResult decideAll(TurnListener listener) {
    PassDecisions decisions = new PassDecisions(indexByKey, jobs.size(), queued.size());
    List<Admission> admissions = new ArrayList<>();
    if (minimumHolds != null) {
      minimumHolds.start(queued);
    }
    for (PreparedJob job : queued) {
      DependencyVerdict verdict = dependencies.verdict(job.index);
      if (listener != null) {
        listener.turn(job, verdict);
      }
      Decision decision = decideOne(job, verdict);
      if (minimumHolds != null) {
        minimumHolds.decided(job, decision);
      }
      decisions.add(job, decision);
      if (decision instanceof Decision.Admit admit) {
        admissions.add(
            new Admission(
                job.key,
                admit.node(),
                admit.effectivePriority(),
                admit.starving(),
                admit.replicaNodes()));
      }
    }
    return new AdmissionResult(decisions, admissions, guard.hold());
  }

  /** Decides one job against the state left by the jobs before it; an admission is reserved. */
  Decision decideOne(PreparedJob job, DependencyVerdict dependency) {
    // 5.1 Invalid spec: rejected with the validation sentences.
    if (!job.problems.isEmpty()) {
      return new Decision.Reject(Reason.InvalidSpec, String.join(" ", job.problems));
    }
    // 5.1b Held (spec.suspend): out of the pass, before any other gate; it takes and counts
    // nothing. A cycle, like an invalid spec, is the manifest's own fault that no release can
    // mend: it rejects a held job too, so dependants skipped for it name a rejected job.
    if (job.reading.held && dependency.kind() != DependencyVerdict.Kind.CYCLE) {
      return waiting(job, Reason.Held, worded ? heldMessage(job.key) : "", List.of());
    }
    // 5.1c Backing off: a failed run's retry waits until its back-off ends, taking nothing.
    if (backingOff(job.reading) && dependency.kind() != DependencyVerdict.Kind.CYCLE) {
      return waiting(
          job,
          Reason.BackingOff,
          worded ? backingOffMessage(job.reading.notBefore) : "",
          List.of());
    }
    // 5.2 Dependencies: cycle, failed ancestor, or not succeeded yet.
    switch (dependency.kind()) {
      case CYCLE:
        return new Decision.Reject(Reason.DependencyCycle, dependency.message());
      case SKIP:
        return new Decision.Skip(dependency.ancestor(), dependency.message());
      case WAIT:
        return waiting(
            job,
            Reason.WaitingForDependency,
            worded ? dependency.message() : "",
            dependency.waitingOn());
      default:
        break;
    }
    // 5.3 Locks: every held key is listed with its holder.
    List<WaitingOn> blocking = reservations.blockingLocks(job);
    if (!blocking.isEmpty()) {
      return waiting(job, Reason.WaitingForLock, worded ? lockMessage(blocking) : "", blocking);
    }
    // 5.4 Group cap (namespace-scoped, like locks).
    List<String> groupHolders = reservations.fullGroupHolders(job);
    if (!groupHolders.isEmpty() || (job.groupId >= 0 && reservations.groupCap(job) <= 0)) {
      List<WaitingOn> on = groupHolders.stream().map(h -> new WaitingOn(job.group(), h)).toList();
      return waiting(
          job, Reason.WaitingForGroup, worded ? groupMessage(job, groupHolders) : "", on);
    }
    // 5.5 Namespace budget: requests of admitted and running jobs of the namespace.
    if (!reservations.fitsBudgetNow(job)) {
      String message =
          worded
              ? "waiting for budget: " + String.join("; ", reservations.budgetShortfalls(job)) + "."
              : "";
      return waiting(job, Reason.WaitingForBudget, message, List.of());
    }
    // 5.5b Its queue: a namespace two queues claim, a cycle of parents, then the max of its queue
    //      and of every queue above it (reserved with each admission, as the budget is).
    if (job.queue == QueueTree.CONFLICT) {
      return waiting(
          job,
          Reason.QueueConflict,
          worded ? queueTree.conflictWords(job.key.namespace()) : "",
          List.of());
    }
    if (queueTree.cycle(job.queue) != null) {
      return waiting(
          job, Reason.QueueCycle, worded ? queueTree.cycleWords(job.queue) : "", List.of());
    }
    if (queueLedger != null && !queueLedger.fitsMax(job)) {
      String message =
          worded
              ? "waiting for queue max: " + String.join("; ", queueLedger.maxShortfalls(job)) + "."
              : "";
      return waiting(job, Reason.WaitingForQueueMax, message, List.of());
    }
    // 5.6 What the protected starving job will need besides capacity: its locks, the last slot of
    //     its group, what is left of its namespace's budget. Taken by a lower-priority job now,
    //     they would turn its wait into another kind, and it would wait again.
    String contested = guard.contested(job);
    if (contested != null) {
      return waiting(
          job,
          Reason.HeldForStarvingJob,
          worded
              ? "held for starving job "
                  + guard.hold().starvingJob()
                  + ": it needs "
                  + contested
                  + " too, and comes first."
              : "",
          List.of());
    }
    // 5.7 Capacity, keeping the node held for a starving job for it, and the nodes kept for the
    //     queues reclaiming their min for them (a reclaiming queue's head goes to its kept node).
    int excluded = guard.excludedNodeFor(job);
    List<QueueMinimumHolds.MinimumHold> minimums =
        minimumHolds == null ? List.of() : minimumHolds.against(job);
    if (job.gang()) {
      return decideGang(job, minimums);
    }
    int node = placeBeside(job, excluded, minimums);
    if (node >= 0) {
      NodeMode mode = pool.modeFor(node, job);
      pool.reserve(node, job);
      reservations.hold(job);
      job.reservedOn = node;
      return new Decision.Admit(pool.name(node), mode, job.effectivePriority, job.starving);
    }
    if (!placement.fitsSomeFullOffer(job)) {
      return waiting(job, Reason.NoNodeFits, worded ? noNodeFitsWords(job) : "", List.of());
    }
    if (job.deferrable && job.requestsNothing()) {
      // It fits some node's offer and is held for nobody: every node it could go to is busy.
      return bestEffortDeferred(job);
    }
    if (excluded >= 0 && fitsAnyKeptForStarving(job)) {
      return waiting(
          job,
          Reason.HeldForStarvingJob,
          worded ? CapacityMessages.heldForStarvingJob(guard.hold()) : "",
          List.of());
    }
    for (QueueMinimumHolds.MinimumHold hold : minimums) {
      if (pool.fitsNow(hold.node, job)) {
        return waiting(
            job, Reason.HeldForQueueMinimum, worded ? minimumHolds.words(hold) : "", List.of());
      }
    }
    return waiting(
        job,
        Reason.WaitingForCapacity,
        worded ? CapacityMessages.waitingForCapacity(pool, mostFreeNotes, job) : "",
        List.of());
  }

  /**
   * 5.7 for a gang: every replica placed at once and reserved on its node, or none; a wait names
   * the replicas the nodes hold now or could ever hold.
   */
  private Decision decideGang(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    int[] avoided = gangAvoids(job, minimums);
    int[] nodes = gangs.place(job, avoided);
    if (nodes != null) {
      NodeMode mode = null;
      List<String> names = new ArrayList<>(nodes.length);
      for (int node : nodes) {
        pool.reserve(node, job);
        NodeMode here = pool.modeFor(node, job);
        mode = mode == null || here.ordinal() < mode.ordinal() ? here : mode;
        names.add(pool.name(node));
      }
      reservations.hold(job);
      job.reservedOn = nodes[0];
      job.replicaNodes = nodes;
      return new Decision.Admit(names.get(0), mode, job.effectivePriority, job.starving, names);
    }
    if (!gangs.fitsWholeSomeday(job)) {
      return waiting(
          job,
          Reason.NoNodeFits,
          worded
              ? CapacityMessages.gangNoNodeFits(pool, gangs, job, policy.nodeHeartbeatTimeout())
              : "",
          List.of());
    }
    if (job.deferrable && job.requestsNothing()) {
      return bestEffortDeferred(job);
    }
    // It fits with the kept nodes: held for the starving job when they are what stops it, else
    // for the queues reclaiming their min.
    if (avoided.length > 0 && gangs.place(job, new int[0]) != null) {
      boolean starvingStopsIt = gangs.place(job, minimumNodes(minimums)) != null;
      return starvingStopsIt || minimums.isEmpty()
          ? waiting(
              job,
              Reason.HeldForStarvingJob,
              worded ? CapacityMessages.heldForStarvingJob(guard.hold()) : "",
              List.of())
          : waiting(
              job,
              Reason.HeldForQueueMinimum,
              worded ? minimumHolds.words(minimums.get(0)) : "",
              List.of());
    }
    return waiting(
        job,
        Reason.WaitingForCapacity,
        worded ? CapacityMessages.gangWaitingForCapacity(pool, gangs, job) : "",
        List.of());
  }

  /**
   * A BestEffort job asking for nothing that some node's offer holds, with every such node busy.
   */
  private Decision bestEffortDeferred(PreparedJob job) {
    return waiting(
        job,
        Reason.BestEffortDeferred,
        worded
            ? CapacityMessages.bestEffortDeferred(pool, job, policy.priority().starvationAfter())
            : "",
        List.of());
  }

  /** The nodes a gang may not take: those kept for the starving job and for queues' mins. */
  int[] gangAvoids(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    int[] starving = guard.excludedNodesFor(job);
    int[] kept = minimumNodes(minimums);
    int[] all = Arrays.copyOf(starving, starving.length + kept.length);
    System.arraycopy(kept, 0, all, starving.length, kept.length);
    return all;
  }

  static int[] minimumNodes(List<QueueMinimumHolds.MinimumHold> minimums) {
    int[] nodes = new int[minimums.size()];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = minimums.get(i).node;
    }
    return nodes;
  }

  /** Where a gang's replicas go now at its turn (as {@link #decideGang} finds), or null. */
  int[] placeGang(PreparedJob job, List<QueueMinimumHolds.MinimumHold> minimums) {
    return gangs.place(job, gangAvoids(job, minimums));
  }

  GangPlacement gangs() {
    return gangs;
  }

  /**
   * Where the job goes now, or -1: a reclaiming queue's head to the node kept for it when it fits
   * there, otherwise the best fit off the node held for a starving job ({@code excluded}) and off
   * the nodes kept for queues reclaiming their min that it would take from ({@code minimums}).
   */
  int placeBeside(PreparedJob job, int excluded, List<QueueMinimumHolds.MinimumHold> minimums) {
    int kept = minimumHolds == null ? -1 : minimumHolds.keptFor(job);
    int[] starving = excluded < 0 ? null : guard.excludedNodesFor(job);
    if (kept >= 0
        && kept != excluded
        && (starving == null || !contains(starving, starving.length, kept))) {
      return kept;
    }
    if (starving != null && starving.length > 1) {
      // A starving gang keeps several nodes: none of them, nor a queue's kept node, is taken.
      return placement.placeAvoiding(job, gangAvoids(job, minimums));
    }
    // The best fit off the starving job's node is the best fit off the kept nodes too when it is
    // none of them (the best of all is the best of fewer), and none fits when it finds none; only
    // a best fit on a kept node needs the slower look at every other node.
    int best = placement.place(job, excluded);
    if (best < 0 || minimums.isEmpty() || !keptFrom(minimums, best)) {
      return best;
    }
    int[] avoided = new int[minimums.size() + 1];
    int count = 0;
    if (excluded >= 0) {
      avoided[count++] = excluded;
    }
    for (QueueMinimumHolds.MinimumHold hold : minimums) {
      if (count == 0 || !contains(avoided, count, hold.node)) {
        avoided[count++] = hold.node;
      }
    }
    return placement.placeAvoiding(job, Arrays.copyOf(avoided, count));
  }

  /** Whether the job fits now on a node kept for the starving job. */
  private boolean fitsAnyKeptForStarving(PreparedJob job) {
    for (int node : guard.excludedNodesFor(job)) {
      if (pool.fitsNow(node, job)) {
        return true;
      }
    }
    return false;
  }

  private static boolean keptFrom(List<QueueMinimumHolds.MinimumHold> minimums, int node) {
    for (QueueMinimumHolds.MinimumHold hold : minimums) {
      if (hold.node == node) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(int[] values, int count, int value) {
    for (int i = 0; i < count; i++) {
      if (values[i] == value) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the job, at its turn now, would pass every gate before capacity and fit some node's
   * full offer: a job a queue reclaiming its min keeps room for.
   */
  private boolean passesGatesBeforeCapacity(PreparedJob job) {
    return job.problems.isEmpty()
        && !job.reading.held
        && !backingOff(job.reading)
        && dependencies.verdict(job.index).kind() == DependencyVerdict.Kind.READY
        && reservations.blockingLocks(job).isEmpty()
        && reservations.fullGroupHolders(job).isEmpty()
        && (job.groupId < 0 || reservations.groupCap(job) > 0)
        && reservations.fitsBudgetNow(job)
        && job.queue >= 0
        && queueTree.cycle(job.queue) == null
        && queueLedger.fitsMax(job)
        && placement.fitsSomeFullOffer(job);
  }

  /**
   * A wait. A starving job's wait may make it the protected one (5.8: the first starving job in
   * pass order whose wait can end, see {@link StarvationGuard}); its Starving note says what is
   * held back for it, or why nothing can be.
   */
  private Decision.Wait waiting(
      PreparedJob job, Reason reason, String message, List<WaitingOn> on) {
    String starvation = null;
    if (job.starving) {
      String capacityNote = guard.consider(job, reason);
      if (capacityNote != null && worded) {
        message += capacityNote;
      }
      starvation = worded ? guard.note(job, reason) : "";
    }
    return new Decision.Wait(reason, message, on, job.effectivePriority, starvation);
  }

  /** The Held sentence, with the command that releases the job. */
  /** The time back-offs are judged at: the snapshot's, or a forecast pass's ({@link #decideAt}). */
  private Instant decidingAt;

  /** Decides later decisions as at {@code t}: a forecast's pass sees back-offs end. */
  void decideAt(Instant t) {
    decidingAt = t;
  }

  /** Whether a retry's back-off still runs at the time this pass decides at. */
  private boolean backingOff(JobReading reading) {
    Instant now = decidingAt != null ? decidingAt : snapshot.now();
    return reading.notBefore != null && now.isBefore(reading.notBefore);
  }

  /** The words of a BackingOff wait, naming when it may run again. */
  public static String backingOffMessage(Instant notBefore) {
    return "backing off after a failed run: it may run again from "
        + notBefore.truncatedTo(ChronoUnit.SECONDS)
        + " on.";
  }

  static String heldMessage(JobKey key) {
    return "held: spec.suspend is true, so this job takes no part in admission until it is"
        + " released; release it with kubectl patch bj "
        + key.name()
        + " -n "
        + key.namespace()
        + " --type=merge -p '{\"spec\":{\"suspend\":false}}' and it keeps its place by the time"
        + " it was queued.";
  }

  private static String lockMessage(List<WaitingOn> blocking) {
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    blocking.forEach(w -> byKey.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w.job()));
    List<String> parts = new ArrayList<>();
    byKey.forEach((key, holders) -> parts.add(key + " held by " + String.join(", ", holders)));
    return (byKey.size() == 1 ? "waiting for lock " : "waiting for locks: ")
        + String.join("; ", parts)
        + ".";
  }

  private String groupMessage(PreparedJob job, List<String> holders) {
    int cap = reservations.groupCap(job);
    String namespace = job.key.namespace();
    if (cap <= 0) {
      return "waiting for group "
          + job.group()
          + ": its maxRunning is "
          + cap
          + ", so no job of this group may run until the policy raises it.";
    }
    return "waiting for group "
        + job.group()
        + ": at most "
        + cap
        + (cap == 1 ? " job" : " jobs")
        + " of this group may be admitted or running at once in"
        + " namespace "
        + namespace
        + ", and "
        + holders.size()
        + (holders.size() == 1 ? " is" : " are")
        + (holders.isEmpty() ? "" : " (" + String.join(", ", holders) + ")")
        + ".";
  }

  private String shapeNoNodeFitsWords(PreparedJob job) {
    return noNodeFitsWords.computeIfAbsent(
        new ShapeFromOrigin(job.shape, job.origin),
        key -> CapacityMessages.noNodeFits(pool, job, policy.nodeHeartbeatTimeout()));
  }

  private String noNodeFitsWords(PreparedJob job) {
    if (job.selectable != null) {
      // The sentence names the selector: not shared by shape alone.
      return CapacityMessages.noNodeFits(pool, job, policy.nodeHeartbeatTimeout());
    }
    return shapeNoNodeFitsWords(job);
  }

  /**
   * From now on decisions carry no sentences: a Wait's message is empty, and so is a starving job's
   * note (still there, so {@link Decision#starving} holds). Reasons, what a job waits on, where it
   * is admitted and every reservation are as before. For the passes a forecast simulates.
   */
  void withoutSentences() {
    worded = false;
    noNodeFitsWords.clear(); // the simulated passes change nodes' modes and readiness
  }

  /** Forgets the starving job's protection: every pass starts without one. */
  void startPass() {
    guard = newGuard();
    if (minimumHolds != null) {
      minimumHolds.stop(); // a forecast's simulated passes keep no room for a min (FuturePasses)
    }
    placement.startPass();
  }

  Snapshot snapshot() {
    return snapshot;
  }

  ScopeNumbers scopes() {
    return scopes;
  }

  NodePool pool() {
    return pool;
  }

  Placement placement() {
    return placement;
  }

  Reservations reservations() {
    return reservations;
  }

  ResourceIndex resources() {
    return resources;
  }

  /** The queues of the snapshot, the default queue last. */
  QueueTree queueTree() {
    return queueTree;
  }

  /** What each queue holds against its max; null while the snapshot has no queue. */
  QueueLedger queueLedger() {
    return queueLedger;
  }

  /** The holds of queues reclaiming their min; null while the snapshot has no queue. */
  QueueMinimumHolds minimumHolds() {
    return minimumHolds;
  }

  /** The fair-share terms of the queues; null while the snapshot has no queue. */
  FairShare fairShare() {
    return fairShare;
  }

  DependencyGraph dependencies() {
    return dependencies;
  }

  StarvationGuard guard() {
    return guard;
  }

  /** Every job of the snapshot, by snapshot index. */
  List<PreparedJob> jobs() {
    return jobs;
  }

  /** The Queued jobs, in pass order at the snapshot's now. */
  List<PreparedJob> queued() {
    return queued;
  }

  PreparedJob job(JobKey key) {
    int i = indexByKey.get(key);
    return i < 0 ? null : jobs.get(i);
  }
}
