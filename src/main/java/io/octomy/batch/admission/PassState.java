package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * What one pass decides against, and all it changes: every job of the snapshot as prepared, the
 * Queued ones in pass order, the node pool with its indexes, the reservations (locks, group slots,
 * budgets, queues' usage), the queues' holds and fair shares, the dependency verdicts and the
 * starvation guard. {@link AdmissionRules} fills it in its steps 1 to 4 and reserves each admission
 * in it; a forecast's simulated passes ({@link FuturePasses}) release the jobs they see end. The
 * class is package-private: nothing outside admission can reach it.
 */
final class PassState {

  private final Snapshot snapshot;
  private final Policy policy;
  private final ResourceIndex resources;
  private final ScopeNumbers scopes;
  private final List<PreparedJob> jobs = new ArrayList<>();
  private List<PreparedJob> queued = new ArrayList<>();
  private final KeyIndex indexByKey;
  private final NodePool pool;
  private final Placement placement;
  private final GangPlacement gangs;
  private final KeptNodes keptNodes;
  private final MostFreeNotes mostFreeNotes;
  private final Reservations reservations;
  private final QueueTree queueTree;

  /** The labels each queue's jobs must find on a node; null while the snapshot has no queue. */
  private final QueueSelectors queueSelectors;

  /** What each queue holds against its max; null while the snapshot has no queue. */
  private final QueueLedger queueLedger;

  /** The holds of queues reclaiming their min; null while the snapshot has no queue. */
  private final QueueMinimumHolds minimumHolds;

  private FairShare fairShare;
  private StarvationGuard guard;
  private DependencyGraph dependencies;

  /**
   * The time back-offs are judged at: the snapshot's, or a forecast pass's ({@link #startPass}).
   */
  private Instant decidingAt;

  /**
   * @param keepsRoomFor whether a job, at its turn, would pass every gate before capacity and fit
   *     some node's full offer: one a queue reclaiming its min keeps room for
   */
  PassState(
      Snapshot snapshot,
      ResourceIndex resources,
      ScopeNumbers scopes,
      Predicate<PreparedJob> keepsRoomFor) {
    this.snapshot = snapshot;
    this.policy = snapshot.policy();
    this.resources = resources;
    this.scopes = scopes;
    this.decidingAt = snapshot.now();
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
                queueTree, queueLedger, pool, placement, resources, keepsRoomFor);
    this.guard = newGuard();
    this.indexByKey = new KeyIndex(snapshot.jobs().size());
    this.keptNodes = new KeptNodes(this);
  }

  private StarvationGuard newGuard() {
    return new StarvationGuard(
        pool, placement, reservations, resources, policy.priority().starvationAfter());
  }

  /**
   * Prepares the snapshot's {@code index}-th job from its reading: its queue, and for a Queued job
   * its origin node and the nodes its and its queues' selectors let it use.
   */
  PreparedJob add(int index, JobReading reading) {
    int queue = queueLedger == null ? -1 : queueTree.queueOf(reading.namespace, reading.view);
    PreparedJob job;
    if (reading.phase == JobPhase.Queued) {
      QueueSelectors.PlacementLabels labels =
          queueSelectors == null ? reading.ownPlacement : queueSelectors.of(reading, queue);
      int origin = pool.indexOf(reading.origin);
      job =
          new PreparedJob(
              index, reading, snapshot.now(), queue, origin, labels, pool.selectable(labels));
      queued.add(job);
    } else {
      job = new PreparedJob(index, reading, snapshot.now(), queue);
    }
    if (indexByKey.putIfAbsent(job.key, reading.keyHash, index) >= 0) {
      throw new IllegalArgumentException("snapshot lists job " + job.key + " twice");
    }
    jobs.add(job);
    return job;
  }

  /**
   * Counts what an Admitted or Running job holds: its node allocation (a gang's replicas each on
   * its node, a replica the view names no node for on the job's node, so nothing it may hold goes
   * uncounted), locks, group slot, budget and queue usage. A holder whose node is unknown still
   * holds all but the allocation.
   */
  void countHolder(PreparedJob job) {
    int node = pool.indexOf(job.reading.node);
    int[] replicaNodes = null;
    if (job.gang()) {
      List<String> names = job.reading.replicaNodes;
      replicaNodes = new int[job.replicas];
      for (int i = 0; i < job.replicas; i++) {
        replicaNodes[i] = i < names.size() ? pool.indexOf(names.get(i)) : node;
        if (replicaNodes[i] >= 0) {
          pool.countExisting(replicaNodes[i], job);
        }
      }
    } else if (node >= 0) {
      pool.countExisting(node, job);
    }
    job.holdOn(node, replicaNodes);
    reservations.hold(job);
  }

  /**
   * Once every holder is counted: the fair-share term of each Queued job's queue, from what the
   * queues hold now (given which of them have work: a job of their own waiting unheld or holding a
   * reservation, or one of a queue below them), added to its effective priority.
   */
  void addFairShares() {
    reservations.sortExisting();
    if (queueLedger == null) {
      return;
    }
    boolean[] worksHere = new boolean[queueTree.size()];
    for (PreparedJob job : jobs) {
      JobPhase phase = job.reading.phase;
      if (job.queue >= 0) {
        worksHere[job.queue] |=
            phase == JobPhase.Queued ? !job.reading.held : phase.holdsReservation();
      }
    }
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
      job.addFairShare(fairShare.term(job.queue));
    }
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

  /** Resolves every dependency at once: waits, transitive skips and cycles. */
  void resolveDependencies() {
    int n = jobs.size();
    JobPhase[] phases = new JobPhase[n];
    boolean[] invalid = new boolean[n];
    boolean[] hasAfter = new boolean[n];
    for (PreparedJob job : jobs) {
      phases[job.index] = job.reading.phase;
      invalid[job.index] = job.reading.phase == JobPhase.Queued && !job.problems.isEmpty();
      hasAfter[job.index] = job.reading.afterKeys.length > 0;
    }
    dependencies = new DependencyGraph(jobs, indexByKey, phases, invalid, hasAfter);
  }

  /** Puts the Queued jobs in pass order, sorting {@code seed}: the same jobs in any order. */
  void order(List<PreparedJob> seed) {
    queued = seed;
    queued.sort(AdmissionRules.PASS_ORDER);
  }

  /** Reserves an admitted job on its node. */
  void admit(PreparedJob job, int node) {
    pool.reserve(node, job);
    reservations.hold(job);
    job.holdOn(node, null);
  }

  /** Reserves an admitted gang, each replica on its node. */
  void admitGang(PreparedJob job, int[] nodes) {
    for (int node : nodes) {
      pool.reserve(node, job);
    }
    reservations.hold(job);
    job.holdOn(nodes[0], nodes);
  }

  /**
   * A forecast's next simulated pass, deciding at {@code at}: it starts without a protected
   * starving job and keeps no room for a queue's min (see {@link FuturePasses}).
   */
  void startPass(Instant at) {
    guard = newGuard();
    if (minimumHolds != null) {
      minimumHolds.stop();
    }
    placement.startPass();
    decidingAt = at;
  }

  /** The time the pass decides at: the snapshot's, or a forecast's simulated pass's. */
  Instant decidingAt() {
    return decidingAt;
  }

  Snapshot snapshot() {
    return snapshot;
  }

  Policy policy() {
    return policy;
  }

  ScopeNumbers scopes() {
    return scopes;
  }

  ResourceIndex resources() {
    return resources;
  }

  NodePool pool() {
    return pool;
  }

  Placement placement() {
    return placement;
  }

  GangPlacement gangs() {
    return gangs;
  }

  /** Where a job goes beside the nodes kept for a starving job and for queues' mins. */
  KeptNodes keptNodes() {
    return keptNodes;
  }

  MostFreeNotes mostFreeNotes() {
    return mostFreeNotes;
  }

  Reservations reservations() {
    return reservations;
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

  /** The Queued jobs, in pass order once ordered. */
  List<PreparedJob> queued() {
    return queued;
  }

  KeyIndex indexByKey() {
    return indexByKey;
  }

  PreparedJob job(JobKey key) {
    int i = indexByKey.get(key);
    return i < 0 ? null : jobs.get(i);
  }
}
