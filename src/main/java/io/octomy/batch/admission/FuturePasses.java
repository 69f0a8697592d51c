package io.octomy.batch.admission;

import io.octomy.batch.admission.ForecastTimeline.End;
import io.octomy.batch.admission.PassSources.TakenFrom;
import io.octomy.batch.vocabulary.PriorityPolicy;
import io.octomy.batch.vocabulary.Quantities;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The passes after the next one, simulated event by event, with the pass's own state and its own
 * {@link AdmissionRules#decideOne}: nothing is decided here that the pass would decide otherwise.
 *
 * <p>Between two events nothing a waiting job waits for can change: locks, group slots, budget and
 * node allocation only shrink within a pass, so a job that failed a gate keeps failing it until a
 * reservation is released. The events are therefore the expected ends of jobs (each releasing its
 * node allocation, locks, group slot and budget, and counting as a success for its dependants), and
 * each is followed by one pass over the jobs it can have helped, taken in pass order at that time
 * (aging included), plus any job held for a starving job and the starving jobs in pass order until
 * one is protected ({@link StarvationGuard}; which gate a job fails first changes as others are
 * admitted, see {@link WaitingRoom}). Every other waiting job would fail again. A pass also runs
 * when a job starts starving while others are held for the starving one: the protection may move.
 *
 * <p>Assumed, and said where the forecast is shown: every job succeeds; nodes, modes, the policy
 * and the set of jobs stay as they are; a pass follows each end at once; each queue's fair-share
 * term stays as the snapshot's holdings made it; only the next pass keeps room for a queue
 * reclaiming its min ({@link QueueMinimumHolds}), the later ones start a job held for one at the
 * next end of a job.
 *
 * <p>The events are kept in time order by {@link ForecastTimeline}; which job a pass takes next is
 * chosen by {@link PassSources}.
 */
final class FuturePasses {

  private final SimulatedPass pass;
  private final PassState state;
  private final NodePool pool;
  private final Reservations reservations;
  private final PriorityPolicy priority;
  private final RunTimeModel model;
  private final WaitingRoom room;
  private final HeldJobs held;

  /** Per namespace number: admissions and ends in it so far (see {@link HeldJobs}). */
  private final long[] namespaceVersions;

  private final ForecastTimeline timeline;
  private final ForecastEntries<ExpectedStart> starts;

  /** Per job: whether {@link #neverStarts} holds, once worked out. */
  private final byte[] neverStarts;

  private static final byte UNKNOWN = 0;
  private static final byte MAY = 1;
  private static final byte NEVER = 2;

  private final int[] stamp;
  private final int[] done;
  private final PreparedJob[] cause;
  private final int[] causeDepth;
  private int passId;
  private int passes;

  /**
   * Jobs waiting for their queue's max, or held for a queue's min, woken by every end of a job in a
   * queue.
   */
  private final List<PreparedJob> queueMaxParked = new ArrayList<>();

  private final PassCandidates candidates;
  private final PassSources sources;

  /** Per job: the array job it is an item of (its index), or -1. */
  private final int[] arrayOf;

  /** Per array job: how many of its items are still to end; -1 for any other job. */
  private final int[] itemsLeft;

  // One pass.
  private Instant t;

  /** A job decided in a simulated pass and not admitted, parked once the pass is over. */
  private record Parking(PreparedJob job, Decision decision) {}

  /**
   * @param itemsOf each array job that has not ended, to the keys of all its items: it ends when
   *     the last of them does, and never when one of them is missing
   */
  FuturePasses(SimulatedPass pass, RunTimeModel model, Map<JobKey, List<JobKey>> itemsOf) {
    this.pass = pass;
    this.state = pass.state();
    this.pool = state.pool();
    this.reservations = state.reservations();
    this.priority = state.snapshot().policy().priority();
    this.model = model;
    int n = state.jobs().size();
    this.room =
        new WaitingRoom(n, state.queued(), state.scopes(), pool.size(), pool.resourceCount());
    this.held = new HeldJobs(n, room);
    this.starts = new ForecastEntries<>(state.jobs(), state::job);
    this.neverStarts = new byte[n];
    this.stamp = new int[n];
    this.done = new int[n];
    this.cause = new PreparedJob[n];
    this.causeDepth = new int[n];
    this.namespaceVersions = new long[room.namespaces()];
    this.candidates =
        new PassCandidates(
            pool, reservations, room, this::touch, job -> done[job.index] == passId, n);
    this.sources = new PassSources(state, room, held, candidates, this::touch);
    this.timeline =
        new ForecastTimeline(
            n,
            state.queued(),
            new ForecastEntries<>(state.jobs(), state::job),
            priority.starvationAfter());
    this.arrayOf = new int[n];
    Arrays.fill(arrayOf, -1);
    this.itemsLeft = new int[n];
    Arrays.fill(itemsLeft, -1);
    itemsOf.forEach(this::countItems);
  }

  /** Counts an array job's items still to end, each pointing back to it. */
  private void countItems(JobKey arrayJob, List<JobKey> items) {
    PreparedJob parent = state.job(arrayJob);
    if (parent == null) {
      return;
    }
    int left = 0;
    for (JobKey key : items) {
      PreparedJob item = state.job(key);
      if (item == null) {
        left = Integer.MAX_VALUE; // an item that will not be created: the array never ends
        break;
      }
      if (!item.reading.phase.isFinal()) {
        arrayOf[item.index] = parent.index;
        left++;
      }
    }
    itemsLeft[parent.index] = left;
  }

  Forecast run(AdmissionResult next, Map<JobKey, GateReport> reports) {
    Instant now = state.snapshot().now();
    for (PreparedJob job : state.jobs()) {
      if (itemsLeft[job.index] >= 0) {
        if (itemsLeft[job.index] == 0) {
          timeline.scheduleEnd(job, -1, now, 1); // its last item just ended
        }
      } else if (job.reading.phase.holdsReservation()) {
        Instant end = model.expectedEnd(job.view);
        timeline.scheduleEnd(job, job.reservedOn, end.isBefore(now) ? now : end, 1);
      }
    }
    // The pass's own decisions sit in pass order, the order of the queued jobs: read by place.
    Map<JobKey, Decision> decisions = next.decisions();
    List<PreparedJob> queued = state.queued();
    for (int place = 0; place < queued.size(); place++) {
      PreparedJob job = queued.get(place);
      Decision d =
          decisions instanceof PassDecisions inOrder && inOrder.keyAt(place) == job.key
              ? inOrder.valueAt(place)
              : decisions.get(job.key);
      if (d instanceof Decision.Admit admit) {
        starts.set(job, new ExpectedStart(job.key, now, admit.node(), null, 0));
        timeline.scheduleEnd(job, job.reservedOn, now.plus(runTime(job)), 1);
      } else if (d.reason() == Reason.WaitingForDependency) {
        awaitDependencies(job);
      } else if (d instanceof Decision.Wait) {
        park(job, d);
      }
    }
    pass.withoutSentences(); // the later passes' sentences are never shown
    while (true) {
      Instant at = timeline.next(now, !held.isEmpty());
      if (at == null) {
        break;
      }
      now = at;
      simulate(at);
    }
    return new Forecast(next, reports, starts, timeline.endTimes(), passes);
  }

  private void awaitDependencies(PreparedJob job) {
    for (WaitingOn on : state.dependencies().verdict(job.index).waitingOn()) {
      PreparedJob dependency = state.job(new JobKey(job.key.namespace(), on.job()));
      if (dependency == null) {
        return; // it does not exist: no predicted end helps
      }
    }
    for (WaitingOn on : state.dependencies().verdict(job.index).waitingOn()) {
      room.awaitDependency(job, state.job(new JobKey(job.key.namespace(), on.job())));
    }
  }

  private Duration runTime(PreparedJob job) {
    Duration d = model.expectedRunTime(job.view);
    return d.isNegative() || d.isZero() ? Duration.ofSeconds(1) : d;
  }

  /** One simulated pass at {@code at}: the ends due then, and the jobs they can have helped. */
  private void simulate(Instant at) {
    t = at;
    passId++;
    passes++;
    state.startPass(at);
    sources.startPass();
    for (End end = timeline.endDue(at); end != null; end = timeline.endDue(at)) {
      release(end);
    }
    held.startPass();
    for (PreparedJob job = timeline.decideAgainDue(at);
        job != null;
        job = timeline.decideAgainDue(at)) {
      wake(job, sources.firstEnd());
    }
    candidates.startPass();
    List<Parking> parkings = new ArrayList<>();
    for (PassSources.Choice next = sources.next(); next != null; next = sources.next()) {
      PreparedJob best = next.job();
      if (next.from() == TakenFrom.HELD && !mayNoLongerBeHeld(best)) {
        held.passOver(best);
        continue;
      }
      if (next.from() == TakenFrom.STARVING && protectedWhereItWaits(best)) {
        continue;
      }
      take(best, next.from(), next.by());
      Decision d = pass.decideReady(best);
      // Meant for this placement only; a gate checked before capacity may have stopped it first.
      best.forgetUnplaceable();
      if (d instanceof Decision.Admit admit) {
        admitted(best, admit, at);
      } else {
        parkings.add(new Parking(best, d));
      }
    }
    // Parked only now: nothing a job waits for can free up within the pass.
    for (Parking p : parkings) {
      park(p.job(), p.decision());
    }
    sources.endPass();
  }

  /** Takes the chosen job out of where it waited, and forgets heads it was. */
  private void take(PreparedJob job, TakenFrom from, End by) {
    switch (from) {
      case WOKEN -> sources.takeWoken();
      case HELD -> held.release(job);
      case NODE -> {
        room.unparkCapacity(job);
        candidates.forget(job);
      }
      case STARVING -> {
        Reason gate = room.parkedOn(job);
        room.unpark(job);
        candidates.forget(job);
        candidates.forgetBudget(job.namespace);
        if (gate == Reason.WaitingForCapacity && !fitsAFreedNode(job)) {
          // It fitted nowhere when parked, and only the nodes freed in this pass have grown since.
          job.knownUnplaceable();
        }
      }
      case BUDGET -> {
        room.unparkBudget(job);
        candidates.forget(job);
        candidates.forgetBudget(job.namespace);
      }
    }
    if (from != TakenFrom.WOKEN) {
      setCause(job, by);
    }
    done[job.index] = passId;
  }

  private void admitted(PreparedJob job, Decision.Admit admit, Instant at) {
    changed(job);
    int node = job.reservedOn;
    if (job.replicaNodes != null) {
      for (int replicaNode : job.replicaNodes) {
        candidates.forgetNode(replicaNode); // a gang's nodes' room shrank, each of them
      }
    } else {
      candidates.forgetNode(node); // its room shrank
    }
    candidates.forgetBudget(job.namespace); // and the namespace's budget
    PreparedJob c = cause[job.index];
    int depth = causeDepth[job.index];
    starts.set(job, new ExpectedStart(job.key, at, admit.node(), c == null ? null : c.key, depth));
    timeline.scheduleEnd(job, node, at.plus(runTime(job)), depth + 1);
  }

  private boolean fitsAFreedNode(PreparedJob job) {
    for (int i = 0; i < sources.freedNodeCount(); i++) {
      if (pool.fitsNow(sources.freedNode(i), job)) {
        return true;
      }
    }
    return false;
  }

  /** Returns one copy of a finished job's requests to its node (none when it has no node). */
  private void freeNode(int node, PreparedJob job, End end) {
    if (node >= 0) {
      pool.release(node, job);
      if (job.resourceIds.length > 0) {
        sources.nodeFreed(node, end);
      }
    }
  }

  private void release(End end) {
    PreparedJob job = end.job();
    sources.ended(end);
    int[] replicaNodes = job.replicaNodes;
    job.releaseAll();
    if (replicaNodes == null) {
      freeNode(end.node(), job, end);
    } else {
      for (int node : replicaNodes) {
        freeNode(node, job, end); // a gang's replicas end together, each freeing its node
      }
    }
    reservations.release(job);
    changed(job);
    if (job.queue >= 0 && !queueMaxParked.isEmpty()) {
      // What a queue holds shrank: each job waiting for a max is decided again (few, and rare).
      List<PreparedJob> waiting = new ArrayList<>(queueMaxParked);
      queueMaxParked.clear();
      waiting.forEach(w -> wake(w, end));
    }
    for (int lock : job.lockIds) {
      if (!reservations.lockHeld(lock)) {
        room.wakeLock(lock).forEach(w -> wake(w, end));
      }
    }
    if (job.groupId >= 0 && reservations.freeGroupSlots(job) > 0) {
      room.wakeGroup(job.groupId).forEach(w -> wake(w, end));
    }
    for (int id : job.resourceIds) {
      if (reservations.budgeted(job.namespace, id)) {
        sources.budgetGrew(job.namespace, end);
        break;
      }
    }
    room.dependencyEnded(job).forEach(w -> wake(w, end));
    int array = arrayOf[job.index];
    if (array >= 0 && --itemsLeft[array] == 0) {
      timeline.scheduleEnd(state.jobs().get(array), -1, t, end.depth());
    }
  }

  private void wake(PreparedJob job, End by) {
    touch(job);
    setCause(job, by);
    sources.wake(job);
  }

  private void setCause(PreparedJob job, End by) {
    cause[job.index] = by == null ? null : by.job();
    causeDepth[job.index] = by == null ? 0 : by.depth();
  }

  /** Priority and starving as of this pass's time, computed once per pass. */
  private void touch(PreparedJob job) {
    if (stamp[job.index] != passId) {
      stamp[job.index] = passId;
      // The fair-share term stays as the snapshot's holdings made it (see the class comment).
      job.rank(
          Quantities.add(
              Priorities.effective(priority, job.serviceClass, job.queuedAt, t), job.fairShare),
          Priorities.starving(priority, job.queuedAt, t));
    }
  }

  /** Counts an admission or end in the job's namespace (see {@link HeldJobs}). */
  private void changed(PreparedJob job) {
    namespaceVersions[job.namespace]++;
  }

  private long version(PreparedJob job) {
    return namespaceVersions[job.namespace];
  }

  /**
   * Whether a held job, at its turn in this pass, may be decided otherwise than last time: there is
   * no hold yet in this pass or another one, its namespace changed, or a node freed in this pass
   * (other than the held one) has room for it.
   */
  private boolean mayNoLongerBeHeld(PreparedJob job) {
    StarvationHold hold = state.guard().hold();
    HeldJobs.Hold under = held.heldUnder(job);
    if (hold == null
        || under.starvingJob() != state.guard().protectedJob().index
        || under.node() != pool.indexOf(hold.node())
        || version(job) != held.namespaceVersion(job)) {
      return true;
    }
    int excluded = state.guard().excludedNodeFor(job);
    for (int i = 0; i < sources.freedNodeCount(); i++) {
      int node = sources.freedNode(i);
      if (node != excluded && pool.fitsNow(node, job)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the first starving parked job, at its turn, was protected without deciding it again: a
   * job parked on a lock is parked on a lock still held (its release would have woken it), and when
   * no lock it lists before that one is held, deciding it again would find it waiting for the same
   * lock, make it the protected job ({@link AdmissionRules#decideOne} through {@link
   * StarvationGuard#consider}) and park it where it is. Only the protection is taken over.
   */
  private boolean protectedWhereItWaits(PreparedJob job) {
    if (room.parkedOn(job) != Reason.WaitingForLock) {
      return false;
    }
    int parkedOn = room.lockOf(job);
    for (int lock : job.lockIds) {
      if (lock == parkedOn) {
        break;
      }
      if (reservations.lockHeld(lock)) {
        return false; // it would wait for that one first
      }
    }
    state.guard().consider(job, Reason.WaitingForLock);
    return state.guard().protectedJob() == job;
  }

  /**
   * Parks a job on the gate it failed. A job that no pass will ever admit is left out: with nodes,
   * modes and the policy fixed, no ready node's full offer holds it, its group may run nothing, or
   * it asks more than its namespace's whole budget. Whatever gate it fails first, such a job is
   * never the one a pass protects either ({@link StarvationGuard}), so deciding it again would
   * change no other decision.
   */
  private void park(PreparedJob job, Decision d) {
    if (neverStarts(job)) {
      return;
    }
    switch (d.reason()) {
      case WaitingForLock -> room.parkForLock(job, lockId(job, d.waitingOn().get(0).key()));
      case WaitingForGroup -> room.parkForGroup(job);
      case WaitingForBudget -> room.parkForBudget(job);
      case BestEffortDeferred ->
          // Measured use does not change in a forecast: it waits until it starts starving.
          timeline.decideAgainAt(job.queuedAt.plus(priority.starvationAfter()).plusNanos(1), job);
      case HeldForStarvingJob ->
          held.hold(
              job,
              new HeldJobs.Hold(
                  state.guard().protectedJob().index, pool.indexOf(state.guard().hold().node())),
              version(job));
      case WaitingForCapacity -> room.parkForCapacity(job);
      // The simulated passes keep no room for a queue's min: a job held for one is decided
      // again at the next end of a job, as one waiting for a queue's max is.
      case WaitingForQueueMax, HeldForQueueMinimum -> queueMaxParked.add(job);
      case BackingOff -> timeline.decideAgainAt(job.reading.notBefore, job);
      default -> {} // rejected or skipped: they never run
    }
  }

  /** The number of the job's lock named {@code key}. */
  private static int lockId(PreparedJob job, String key) {
    int k = job.lockKeys.indexOf(key);
    if (k < 0) {
      throw new IllegalStateException(
          job.key + " waits for lock " + key + ", which it does not name");
    }
    return job.lockIds[k];
  }

  /** Worked out once per job: group caps, budgets, nodes and modes stay as they are. */
  private boolean neverStarts(PreparedJob job) {
    if (neverStarts[job.index] == UNKNOWN) {
      neverStarts[job.index] =
          (job.groupId >= 0 && reservations.groupCap(job) <= 0)
                  || !reservations.fitsWholeBudget(job)
                  || !state.placement().fitsSomeFullOffer(job)
              ? NEVER
              : MAY;
    }
    return neverStarts[job.index] == NEVER;
  }
}
