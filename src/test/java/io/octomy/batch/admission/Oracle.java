package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.ServiceClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An independent, deliberately naive re-reading of the rules, used by the property tests to check a
 * pass's result: it replays the admissions one by one against what the snapshot's Admitted and
 * Running jobs already hold, and fails on the first bound that is broken.
 */
final class Oracle {

  private final Snapshot snapshot;
  private final Map<String, NodeView> nodes = new HashMap<>();
  private final Map<JobKey, JobView> jobs = new HashMap<>();

  /** node -> resource -> allocated. */
  private final Map<String, Map<String, Long>> allocated = new HashMap<>();

  private final Set<List<String>> locks = new HashSet<>();
  private final Map<List<String>, Integer> groups = new HashMap<>();
  private final Map<List<String>, Long> budgetUse = new HashMap<>();

  /** queue name -> its view; namespace -> the queues that claim it. */
  private final Map<String, QueueView> queues = new HashMap<>();

  private final Map<String, List<String>> claims = new HashMap<>();

  /** [queue, resource] -> what the queue's subtree holds. */
  private final Map<List<String>, Long> queueUse = new HashMap<>();

  Oracle(Snapshot snapshot) {
    this.snapshot = snapshot;
    snapshot.nodes().forEach(n -> nodes.put(n.name(), n));
    snapshot.jobs().forEach(j -> jobs.put(j.key(), j));
    snapshot.queues().forEach(q -> queues.put(q.name(), q));
    snapshot
        .queues()
        .forEach(
            q ->
                Set.copyOf(q.namespaces())
                    .forEach(
                        ns -> claims.computeIfAbsent(ns, k -> new ArrayList<>()).add(q.name())));
    snapshot.jobs().stream().filter(j -> j.phase().holdsReservation()).forEach(this::take);
  }

  private void take(JobView job) {
    for (String node : replicaNodes(job)) {
      takeOn(node, job);
    }
    takeScopes(job);
  }

  /** A holder's node per replica: as its view names them, a replica it names none for on node. */
  private static List<String> replicaNodes(JobView job) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < job.replicas(); i++) {
      out.add(i < job.replicaNodes().size() ? job.replicaNodes().get(i) : job.node());
    }
    return out;
  }

  /** One replica's requests on its node. */
  private void takeOn(String node, JobView job) {
    if (node != null) {
      Map<String, Long> onNode = allocated.computeIfAbsent(node, k -> new HashMap<>());
      job.requests().forEach((r, q) -> onNode.merge(r, Math.max(0, q), Long::sum));
    }
  }

  /** Locks, the group slot (one per job, gang or not), and replicas times its requests. */
  private void takeScopes(JobView job) {
    job.locks().forEach(k -> locks.add(List.of(job.namespace(), k)));
    if (job.group() != null) {
      groups.merge(List.of(job.namespace(), job.group()), 1, Integer::sum);
    }
    job.requests()
        .forEach((r, q) -> budgetUse.merge(List.of(job.namespace(), r), whole(job, q), Long::sum));
    for (String queue : queueChain(job)) {
      job.requests().forEach((r, q) -> queueUse.merge(List.of(queue, r), whole(job, q), Long::sum));
    }
  }

  /** What the whole job takes of a request: replicas times it (these worlds never overflow). */
  private static long whole(JobView job, long request) {
    return Math.max(0, request) * job.replicas();
  }

  /**
   * How many copies of the job's requests fit the node now, on top of everything replayed so far
   * (any number, up to its replicas, for a job that requests nothing).
   */
  long copiesNow(NodeView node, JobView job) {
    NodeMode mode = node.name().equals(job.origin()) ? node.ownMode() : node.mode();
    if (!ready(node) || mode == NodeMode.Off || !selects(job, node)) {
      return 0;
    }
    Map<String, Long> onNode = allocated.getOrDefault(node.name(), Map.of());
    long copies = job.replicas();
    for (Map.Entry<String, Long> e : job.requests().entrySet()) {
      if (e.getValue() > 0) {
        long free = offer(node, job, e.getKey()) - onNode.getOrDefault(e.getKey(), 0L);
        copies = Math.min(copies, Math.max(0, free) / e.getValue());
      }
    }
    return copies;
  }

  /** How many copies the node's full offer holds, up to the job's replicas. */
  long copiesInFullOffer(NodeView node, JobView job) {
    NodeMode mode = node.name().equals(job.origin()) ? node.ownMode() : node.mode();
    if (!ready(node) || mode == NodeMode.Off || !selects(job, node)) {
      return 0;
    }
    long copies = job.replicas();
    for (Map.Entry<String, Long> e : job.requests().entrySet()) {
      if (e.getValue() > 0) {
        copies = Math.min(copies, offer(node, job, e.getKey()) / e.getValue());
      }
    }
    return copies;
  }

  /**
   * Whether the ready nodes' full offers hold every replica at once (one copy for a single job).
   */
  boolean fitsSomeFullOffers(JobView job) {
    return snapshot.nodes().stream().mapToLong(n -> copiesInFullOffer(n, job)).sum()
        >= job.replicas();
  }

  /** The one queue that claims the job's namespace; null for none or for two. */
  private String queueOf(JobView job) {
    List<String> claimants = claims.getOrDefault(job.namespace(), List.of());
    return claimants.size() == 1 ? claimants.get(0) : null;
  }

  /** Its queue and every queue above it, each once; a chain into a cycle stops at the repeat. */
  private List<String> queueChain(JobView job) {
    List<String> chain = new ArrayList<>();
    for (String q = queueOf(job); q != null && queues.containsKey(q) && !chain.contains(q); ) {
      chain.add(q);
      q = queues.get(q).parent();
    }
    return chain;
  }

  /** True when its chain of parents comes back to a queue it passed. */
  private boolean inOrBelowCycle(JobView job) {
    List<String> seen = new ArrayList<>();
    for (String q = queueOf(job); q != null && queues.containsKey(q); q = queues.get(q).parent()) {
      if (seen.contains(q)) {
        return true;
      }
      seen.add(q);
    }
    return false;
  }

  boolean ready(NodeView node) {
    return node.ready()
        && node.heartbeat() != null
        && node.heartbeat().isAfter(snapshot.now().minus(snapshot.policy().nodeHeartbeatTimeout()));
  }

  long offer(NodeView node, JobView job, String resource) {
    NodeMode mode = node.name().equals(job.origin()) ? node.ownMode() : node.mode();
    if (mode == NodeMode.Off) {
      return 0;
    }
    long capacity = Math.max(0, node.capacity().getOrDefault(resource, 0L));
    return capacity * snapshot.policy().modes().percent(mode, resource) / 100;
  }

  /**
   * Busy for this job's kind of work: the node measures at least as much of some resource in use as
   * it offers of it (an offer of 0 does not count).
   */
  boolean busy(NodeView node, JobView job) {
    return node.usage().entrySet().stream()
        .anyMatch(
            e -> {
              long offer = offer(node, job, e.getKey());
              return offer > 0 && e.getValue() >= offer;
            });
  }

  /** Deferred first when busy: BestEffort and not starving. */
  boolean deferrable(JobView job, Decision d) {
    return job.serviceClass() == ServiceClass.BestEffort && !d.starving();
  }

  /** Every pair of the job's nodeSelector is among the node's labels. */
  static boolean selects(JobView job, NodeView node) {
    for (Map.Entry<String, String> wanted : job.nodeSelector().entrySet()) {
      if (!wanted.getValue().equals(node.labels().get(wanted.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** Whether the job fits the node now, on top of everything replayed so far. */
  boolean fitsNow(NodeView node, JobView job) {
    NodeMode mode = node.name().equals(job.origin()) ? node.ownMode() : node.mode();
    if (!ready(node) || mode == NodeMode.Off || !selects(job, node)) {
      return false;
    }
    Map<String, Long> onNode = allocated.getOrDefault(node.name(), Map.of());
    return job.requests().entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .allMatch(
            e ->
                onNode.getOrDefault(e.getKey(), 0L) + e.getValue() <= offer(node, job, e.getKey()));
  }

  boolean fitsFullOffer(NodeView node, JobView job) {
    NodeMode mode = node.name().equals(job.origin()) ? node.ownMode() : node.mode();
    if (!ready(node) || mode == NodeMode.Off || !selects(job, node)) {
      return false;
    }
    return job.requests().entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .allMatch(e -> e.getValue() <= offer(node, job, e.getKey()));
  }

  /** Replays the admissions in order and checks every bound and every decision's shape. */
  void check(AdmissionResult result) {
    Policy policy = snapshot.policy();
    Set<JobKey> queued = new HashSet<>();
    snapshot.jobs().stream()
        .filter(j -> j.phase() == JobPhase.Queued)
        .forEach(j -> queued.add(j.key()));
    assertThat(result.decisions().keySet())
        .as("a decision for every Queued job, only them")
        .isEqualTo(queued);

    List<JobKey> admitted = new ArrayList<>();
    result
        .decisions()
        .forEach(
            (key, d) -> {
              assertThat(d.reason()).isNotNull();
              assertThat(d.message()).as("message of %s", key).isNotBlank();
              if (d instanceof Decision.Wait w) {
                assertThat(w.reason().isWait()).isTrue();
              }
              if (d instanceof Decision.Admit) {
                admitted.add(key);
              }
              // Held: exactly the suspended jobs, but for an invalid spec or a dependency cycle,
              // which are rejected whatever the hold.
              JobView job = jobs.get(key);
              if (d.reason() != Reason.InvalidSpec && d.reason() != Reason.DependencyCycle) {
                assertThat(d.reason() == Reason.Held)
                    .as("%s suspended %s, decided %s", key, job.suspend(), d.reason())
                    .isEqualTo(job.suspend());
              }
              if (d.reason() == Reason.Held) {
                assertThat(d.starving()).as("held %s is not starving", key).isFalse();
              }
              // A held job holds nothing: no lock or group wait names it as a holder.
              if (d.reason() == Reason.WaitingForLock || d.reason() == Reason.WaitingForGroup) {
                for (WaitingOn on : ((Decision.Wait) d).waitingOn()) {
                  JobView holder = jobs.get(new JobKey(key.namespace(), on.job()));
                  assertThat(
                          holder.phase().holdsReservation()
                              || result.decisions().get(holder.key()) instanceof Decision.Admit)
                      .as("%s waits on %s, which holds nothing", key, on.job())
                      .isTrue();
                }
              }
            });
    assertThat(result.admissions().stream().map(Admission::job).toList())
        .as("admissions list the Admit decisions in pass order")
        .isEqualTo(admitted);

    StarvationHold hold = result.hold();
    JobView protectedJob = hold == null ? null : jobs.get(hold.starvingJob());
    if (protectedJob != null) {
      Decision d = result.decisions().get(protectedJob.key());
      assertThat(d).as("the protected job waits").isInstanceOf(Decision.Wait.class);
      assertThat(d.starving()).as("the protected job is starving").isTrue();
      assertThat(d.reason()).isEqualTo(hold.waitingFor());
      // A job no node could ever hold never runs: protecting it would hold others back forever.
      assertThat(fitsSomeFullOffers(protectedJob))
          .as("protected %s fits the ready nodes' full offers", protectedJob.name())
          .isTrue();
      for (String kept : hold.nodes()) {
        assertThat(fitsFullOffer(nodes.get(kept), protectedJob))
            .as("node %s kept for %s is one it may use", kept, protectedJob.name())
            .isTrue();
      }
      // Nor does one whose group may run nothing, or that asks more than its whole budget.
      if (protectedJob.group() != null) {
        assertThat(snapshot.policy().maxRunning(protectedJob.group()))
            .as("protected %s is in a group that may run a job", protectedJob.name())
            .isPositive();
      }
      Map<String, Long> wholeBudget =
          snapshot.policy().budgets().getOrDefault(protectedJob.namespace(), Map.of());
      protectedJob
          .requests()
          .forEach(
              (r, q) -> {
                if (wholeBudget.containsKey(r)) {
                  assertThat(whole(protectedJob, q))
                      .as(
                          "protected %s asks at most the whole budget of %s",
                          protectedJob.name(), r)
                      .isLessThanOrEqualTo(wholeBudget.get(r));
                }
              });
    }
    List<JobKey> passOrder = List.copyOf(result.decisions().keySet());
    int protectedAt =
        protectedJob == null ? Integer.MAX_VALUE : passOrder.indexOf(protectedJob.key());
    for (Admission admission : result.admissions()) {
      JobView job = jobs.get(admission.job());
      NodeView node = nodes.get(admission.node());
      assertThat(node).as("node of %s", job.name()).isNotNull();
      Decision.Admit admit = (Decision.Admit) result.decisions().get(job.key());
      assertThat(admit.nodes())
          .as("%s is admitted with a node for each of its %s replicas", job.name(), job.replicas())
          .hasSize(job.replicas());
      assertThat(admit.nodes().get(0)).isEqualTo(admission.node());
      // Replica by replica, each on top of the ones before it: the whole gang fits at once.
      for (String replicaNode : admit.nodes()) {
        NodeView on = nodes.get(replicaNode);
        assertThat(on).as("replica node %s of %s", replicaNode, job.name()).isNotNull();
        assertThat(fitsNow(on, job))
            .as("a replica of %s fits %s when admitted", job.name(), replicaNode)
            .isTrue();
        if (deferrable(job, admit)) {
          assertThat(busy(on, job))
              .as("BestEffort %s is not placed on busy %s", job.name(), replicaNode)
              .isFalse();
        }
        if (passOrder.indexOf(job.key()) > protectedAt) {
          checkNothingTakenFrom(protectedJob, job, replicaNode, hold);
        }
        takeOn(replicaNode, job);
      }
      for (String lock : job.locks()) {
        assertThat(locks)
            .as("lock %s of %s is free", lock, job.name())
            .doesNotContain(List.of(job.namespace(), lock));
      }
      if (job.group() != null) {
        assertThat(groups.getOrDefault(List.of(job.namespace(), job.group()), 0))
            .as("group %s has room for %s", job.group(), job.name())
            .isLessThan(policy.maxRunning(job.group()));
      }
      Map<String, Long> budget = policy.budgets().getOrDefault(job.namespace(), Map.of());
      job.requests()
          .forEach(
              (r, q) -> {
                if (budget.containsKey(r) && q > 0) {
                  assertThat(
                          budgetUse.getOrDefault(List.of(job.namespace(), r), 0L) + whole(job, q))
                      .as("budget %s of %s", r, job.namespace())
                      .isLessThanOrEqualTo(budget.get(r));
                }
              });
      assertThat(claims.getOrDefault(job.namespace(), List.of()).size())
          .as("namespace of %s is claimed by at most one queue", job.name())
          .isLessThanOrEqualTo(1);
      assertThat(inOrBelowCycle(job)).as("queue of %s is in no cycle", job.name()).isFalse();
      for (String queue : queueChain(job)) {
        Map<String, Long> max = queues.get(queue).max();
        job.requests()
            .forEach(
                (r, q) -> {
                  if (max.containsKey(r) && q > 0) {
                    assertThat(queueUse.getOrDefault(List.of(queue, r), 0L) + whole(job, q))
                        .as("max %s of queue %s, admitting %s", r, queue, job.name())
                        .isLessThanOrEqualTo(max.get(r));
                  }
                });
      }
      for (String dep : job.after()) {
        JobView d = jobs.get(new JobKey(job.namespace(), dep));
        assertThat(d).as("dependency %s of %s exists", dep, job.name()).isNotNull();
        assertThat(d.phase()).isEqualTo(JobPhase.Succeeded);
      }
      takeScopes(job);
    }

    // Allocation only grows in a pass, so a job told to wait for capacity must not fit anywhere
    // now either (except on the node held for a starving job).
    List<String> held = result.hold() == null ? List.of() : result.hold().nodes();
    result
        .decisions()
        .forEach(
            (key, d) -> {
              JobView job = jobs.get(key);
              if (d.reason() == Reason.WaitingForCapacity || d.reason() == Reason.NoNodeFits) {
                // A gang waits while the nodes (but those held) have room for fewer copies than
                // it has replicas; a single job while no node has room for it.
                long room =
                    snapshot.nodes().stream()
                        .filter(n -> !held.contains(n.name()))
                        .mapToLong(n -> copiesNow(n, job))
                        .sum();
                assertThat(room)
                    .as("%s (%s) does not fit the nodes now: %s", key, d.reason(), d.message())
                    .isLessThan(job.replicas());
                boolean fitsSomeOffer = fitsSomeFullOffers(job);
                assertThat(fitsSomeOffer)
                    .as("%s: %s", key, d.message())
                    .isEqualTo(d.reason() == Reason.WaitingForCapacity);
              }
              if (d.reason() == Reason.BestEffortDeferred) {
                assertThat(deferrable(job, d)).as("%s is BestEffort, not starving", key).isTrue();
                for (NodeView node : snapshot.nodes()) {
                  assertThat(fitsNow(node, job) && !busy(node, job))
                      .as("%s deferred, yet %s would take it", key, node.name())
                      .isFalse();
                }
                assertThat(snapshot.nodes().stream().anyMatch(n -> fitsNow(n, job)))
                    .as("%s is deferred only by busy nodes", key)
                    .isTrue();
              }
              if (d instanceof Decision.Skip skip) {
                JobView ancestor = jobs.get(new JobKey(key.namespace(), skip.failedAncestor()));
                assertThat(ancestor).isNotNull();
                Decision ancestorDecision = result.decisions().get(ancestor.key());
                assertThat(
                        failsDependants(ancestor.phase())
                            || ancestorDecision instanceof Decision.Reject)
                    .as("ancestor %s of %s failed", ancestor.name(), key)
                    .isTrue();
              }
            });
  }

  /**
   * A lower-priority admission takes none of what the protected starving job needs: its locks, the
   * last free slot of its group, budget it would then lack, room on the node kept for it.
   */
  private void checkNothingTakenFrom(
      JobView starving, JobView job, String node, StarvationHold hold) {
    if (hold.nodes().contains(node)) {
      assertThat(
              job.requests().entrySet().stream()
                  .noneMatch(e -> e.getValue() > 0 && hold.resources().contains(e.getKey())))
          .as("%s admitted on %s, kept for %s", job.name(), node, starving.name())
          .isTrue();
    }
    if (!job.namespace().equals(starving.namespace())) {
      return;
    }
    for (String lock : job.locks()) {
      assertThat(starving.locks())
          .as("%s takes a lock of %s", job.name(), starving.name())
          .doesNotContain(lock);
    }
    if (job.group() != null && job.group().equals(starving.group())) {
      assertThat(groups.getOrDefault(List.of(job.namespace(), job.group()), 0) + 1)
          .as("%s leaves a slot of group %s for %s", job.name(), job.group(), starving.name())
          .isLessThan(snapshot.policy().maxRunning(job.group()));
    }
    Map<String, Long> budget = snapshot.policy().budgets().getOrDefault(job.namespace(), Map.of());
    job.requests()
        .forEach(
            (r, q) -> {
              long need = whole(starving, starving.requests().getOrDefault(r, 0L));
              if (budget.containsKey(r) && q > 0 && need > 0) {
                assertThat(
                        budgetUse.getOrDefault(List.of(job.namespace(), r), 0L)
                            + whole(job, q)
                            + need)
                    .as("%s leaves budget %s for %s", job.name(), r, starving.name())
                    .isLessThanOrEqualTo(budget.get(r));
              }
            });
  }

  /**
   * The finished phases that make queued dependants skip, written out independently of the pass.
   */
  private static boolean failsDependants(JobPhase phase) {
    return phase == JobPhase.Failed || phase == JobPhase.Skipped || phase == JobPhase.Rejected;
  }
}
