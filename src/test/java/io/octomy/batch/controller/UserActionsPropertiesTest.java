package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.Resources;
import io.octomy.batch.controller.FakeCluster.Fault;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.statistics.Statistics;

/**
 * Random interleavings of what users and machines do (create, edit, delete with and without a
 * finalizer, mode and executor changes, node deletion, agents falling silent, runs ending, lost and
 * uncertain writes, a lagging cache) with admission passes, against the loop and an in-memory
 * server that enforces none of the CRD's rules. After every step:
 *
 * <ul>
 *   <li>no admission landed while the jobs holding a place on its node, itself included, and the
 *       processes still running there for jobs deleted or gone, held more than the node offered in
 *       the mode recorded for that admission (the mode the pass read);
 *   <li>no job was started twice (a Pod and a process, two Pods, or two processes for one uid);
 *   <li>no lock is held by two jobs, and no group has more jobs holding places than its cap.
 * </ul>
 *
 * The agents and kubelets are stand-ins that follow the agent's written rules (start a job once,
 * only in phase Admitted, only when its recorded executor is Process, never one being deleted; stop
 * the process of a job being deleted or gone at their next report): the property is about the
 * controller's side of those edges.
 */
class UserActionsPropertiesTest {

  private static final String CPU = ApiFixtures.CPU;
  private static final String NS = "default";
  private static final int JOBS = 6;
  private static final List<String> NODES = List.of("n0", "n1", "n2");
  private static final Map<String, Long> CAPACITY = Map.of("n0", 4000L, "n1", 3000L, "n2", 2000L);
  private static final Map<String, Executor> FIRST_EXECUTOR =
      Map.of("n0", Executor.Pod, "n1", Executor.Process, "n2", Executor.Process);
  private static final ModeTable MODES = ModeTable.defaults();

  /** One thing a user, a machine or the network does. */
  sealed interface Step {}

  record Create(int job, long cpu, boolean guaranteed, boolean lock, boolean group, boolean origin)
      implements Step {}

  record EditRequest(int job, long cpu) implements Step {}

  record Delete(int job) implements Step {}

  record DeleteBehindFinalizer(int job) implements Step {}

  record ChangeMode(int node, NodeMode mode, boolean own) implements Step {}

  record ChangeExecutor(int node, Executor executor) implements Step {}

  record DeleteNode(int node) implements Step {}

  /** The node's agent reports (re-creating its BatchNode when it is gone, as an agent does). */
  record AgentReports(int node) implements Step {}

  /** Time passes; agents that do not report meanwhile fall silent. */
  record Wait(int seconds) implements Step {}

  record RunEnds(int job, boolean succeeded) implements Step {}

  record WriteFault(int job, Fault fault) implements Step {}

  record CacheLags(boolean lagging) implements Step {}

  record CacheCatchesUpBut(int job) implements Step {}

  record Pass() implements Step {}

  private AdmissionLoopTest.Harness h;
  private final List<String> violations = new ArrayList<>();
  private final Map<String, Integer> processStarts = new HashMap<>();
  private final Map<String, Long> startedCpu = new HashMap<>();
  private final Set<String> orphaned = new HashSet<>();
  private boolean heldWhileDeleting;

  /** Passes run so far, and per job uid the pass of its latest admission. */
  private int passes;

  private final Map<String, Integer> admittedInPass = new HashMap<>();

  /** Per node, uid to what its stand-in agent reports for the processes it started. */
  private final Map<String, Map<String, NodeJob>> processes = new HashMap<>();

  @AfterTry
  void close() {
    if (h != null) {
      h.loop.close();
    }
  }

  @Property(tries = 150, shrinking = ShrinkingMode.BOUNDED)
  void noOvercommitNoDoubleStartNoLockHeldTwiceWhateverUsersDo(
      @ForAll("scripts") List<Step> script) {
    run(script);
    // What the scripts reached, so a generator that stops reaching it shows in the report.
    int admissions = h.cluster.admissionsApplied().size();
    Statistics.label("admissions").collect(admissions == 0 ? "0" : admissions < 4 ? "1-3" : "4+");
    Statistics.label("held while being deleted").collect(heldWhileDeleting);
  }

  /**
   * Seed 7598918567012894710, shrunk by hand: j0's finalizer is bypassed (the write that records
   * its run finds it deleted) while its process still runs on n2. Until n2's agent reports the
   * process stopped, n2 is full: j4 must not be admitted into j0's place.
   */
  @Example
  void aRunWhoseJobIsGoneKeepsItsNodeFullUntilItsAgentReportsItStopped() {
    run(
        List.of(
            new Create(0, 1000, true, false, false, true),
            new Wait(90),
            new AgentReports(2),
            new Pass(),
            new AgentReports(2),
            new WriteFault(0, Fault.GONE),
            new Create(4, 1500, true, false, false, true),
            new Pass(),
            new Pass()));
    assertThat(h.cluster.job("j0")).as("j0 is gone").isNull();
    assertThat(h.cluster.job("j4").getStatus().getPhase()).isEqualTo(JobPhase.Queued);
    apply(new AgentReports(2));
    apply(new Pass());
    assertThat(violations).isEmpty();
    assertThat(h.cluster.job("j4").getStatus().getPhase())
        .as("admitted once the agent reports j0's process stopped")
        .isEqualTo(JobPhase.Admitted);
    assertThat(h.cluster.job("j4").getStatus().getNode()).isEqualTo("n2");
  }

  /**
   * Seed 2120697592463513333, shrunk: j0 and j1 are n2's own work (ownMode Interactive, 1000 of
   * 2000), j2 another's (mode Drone, 2000). Decided in that order all three fit, whichever order
   * their writes land in; a fourth own job would not.
   */
  @Example
  void ownWorkAndOthersWorkAdmittedInOnePassFitEachInTheirOwnOffer() {
    run(
        List.of(
            new Create(0, 500, true, false, true, true),
            new ChangeMode(2, NodeMode.Interactive, true),
            new Create(1, 500, true, false, false, true),
            new Create(2, 500, true, true, false, false),
            new Pass(),
            new Create(3, 500, true, false, false, true),
            new Pass()));
    assertThat(h.cluster.job("j2").getStatus().getNode()).isEqualTo("n2");
    assertThat(h.cluster.job("j3").getStatus().getNode()).isNotEqualTo("n2");
  }

  private void run(List<Step> script) {
    h = new AdmissionLoopTest.Harness();
    violations.clear();
    processStarts.clear();
    startedCpu.clear();
    orphaned.clear();
    processes.clear();
    heldWhileDeleting = false;
    passes = 0;
    admittedInPass.clear();
    h.cluster.onAdmission(this::checkAdmission);
    for (String n : NODES) {
      h.cluster.add(h.readyNode(n, CAPACITY.get(n), FIRST_EXECUTOR.get(n)));
    }
    int i = 0;
    for (Step step : script) {
      apply(step);
      checkHolds("after step " + i++ + " " + step);
      assertThat(violations).as("script %s", script).isEmpty();
    }
  }

  @Provide
  Arbitrary<List<Step>> scripts() {
    Arbitrary<Integer> job = Arbitraries.integers().between(0, JOBS - 1);
    Arbitrary<Integer> node = Arbitraries.integers().between(0, NODES.size() - 1);
    Arbitrary<Long> cpu = Arbitraries.of(0L, 500L, 1000L, 1500L, 2000L, 3000L);
    Arbitrary<Boolean> bool = Arbitraries.of(true, false);
    Arbitrary<Step> create = Combinators.combine(job, cpu, bool, bool, bool, bool).as(Create::new);
    Arbitrary<Step> step =
        Arbitraries.frequencyOf(
            Tuple.of(6, create),
            Tuple.of(2, Combinators.combine(job, cpu).as(EditRequest::new)),
            Tuple.of(2, job.map(Delete::new)),
            Tuple.of(2, job.map(DeleteBehindFinalizer::new)),
            Tuple.of(
                2,
                Combinators.combine(node, Arbitraries.of(NodeMode.class), bool)
                    .as(ChangeMode::new)),
            Tuple.of(
                1,
                Combinators.combine(node, Arbitraries.of(Executor.class)).as(ChangeExecutor::new)),
            Tuple.of(1, node.map(DeleteNode::new)),
            Tuple.of(6, node.map(AgentReports::new)),
            Tuple.of(2, Arbitraries.of(5, 30, 90).map(Wait::new).map(Step.class::cast)),
            Tuple.of(3, Combinators.combine(job, bool).as(RunEnds::new)),
            Tuple.of(2, Combinators.combine(job, Arbitraries.of(Fault.class)).as(WriteFault::new)),
            Tuple.of(1, bool.map(CacheLags::new)),
            Tuple.of(1, job.map(CacheCatchesUpBut::new)),
            Tuple.of(10, Arbitraries.just(new Pass())));
    return step.list().ofMinSize(10).ofMaxSize(60);
  }

  private static String jobName(int i) {
    return "j" + i;
  }

  private void apply(Step step) {
    FakeCluster c = h.cluster;
    if (step instanceof Create s) {
      if (c.job(jobName(s.job())) == null) {
        ApiFixtures.JobBuilder b = aJob(jobName(s.job()));
        if (s.cpu() > 0) {
          b.cpu(s.cpu());
          if (s.guaranteed()) {
            b.limit(CPU, s.cpu());
          }
        }
        if (s.lock()) {
          b.locks("subject/ernie");
        }
        if (s.group()) {
          b.group("simulator");
        }
        if (s.origin()) {
          b.origin("n2");
        }
        c.add(b.build());
      }
    } else if (step instanceof EditRequest s) {
      if (c.job(jobName(s.job())) != null) {
        c.editSpec(
            jobName(s.job()),
            spec -> {
              spec.setResources(new Resources(Map.of(CPU, s.cpu()), null));
              spec.setLocks(null);
              spec.setGroup(null);
            });
      }
    } else if (step instanceof Delete s) {
      c.delete(jobName(s.job()));
    } else if (step instanceof DeleteBehindFinalizer s) {
      BatchJob j = c.job(jobName(s.job()));
      if (j != null && j.getMetadata().getDeletionTimestamp() == null) {
        c.deleteBehindFinalizer(jobName(s.job()));
      }
    } else if (step instanceof ChangeMode s) {
      if (c.node(NODES.get(s.node())) != null) {
        c.editNode(
            NODES.get(s.node()),
            spec -> {
              if (s.own()) {
                spec.setOwnMode(s.mode());
              } else {
                spec.setMode(s.mode());
              }
            });
      }
    } else if (step instanceof ChangeExecutor s) {
      if (c.node(NODES.get(s.node())) != null) {
        c.editNode(NODES.get(s.node()), spec -> spec.setExecutor(s.executor()));
      }
    } else if (step instanceof DeleteNode s) {
      processes.getOrDefault(NODES.get(s.node()), Map.of()).keySet().forEach(orphaned::add);
      c.deleteNode(NODES.get(s.node()));
    } else if (step instanceof AgentReports s) {
      agentReports(NODES.get(s.node()));
    } else if (step instanceof Wait s) {
      h.clock.advance(Duration.ofSeconds(s.seconds()));
    } else if (step instanceof RunEnds s) {
      runEnds(jobName(s.job()), s.succeeded());
    } else if (step instanceof WriteFault s) {
      c.fault(jobName(s.job()), s.fault());
    } else if (step instanceof CacheLags s) {
      c.autoSync = !s.lagging();
      c.sync();
    } else if (step instanceof CacheCatchesUpBut s) {
      c.syncAllBut(jobName(s.job()));
    } else if (step instanceof Pass s) {
      passes++;
      h.pass();
    }
  }

  /**
   * A stand-in agent's report: on a Process node it starts the jobs admitted here to run as
   * processes (once), stops those being deleted or gone, reports them all; on a Pod node the
   * kubelet starts the Pods bound here. Either way the heartbeat is renewed.
   */
  private void agentReports(String node) {
    FakeCluster c = h.cluster;
    if (c.node(node) == null) {
      c.add(
          aNode(node)
              .capacity(CPU, CAPACITY.get(node))
              .executor(FIRST_EXECUTOR.get(node))
              .heartbeat(h.clock.instant())
              .build());
    }
    Map<String, NodeJob> mine = processes.computeIfAbsent(node, k -> new HashMap<>());
    Map<String, BatchJob> byUid = new HashMap<>();
    for (BatchJob j : c.serverJobs()) {
      byUid.put(j.getMetadata().getUid(), j);
      if (j.getStatus() == null
          || !node.equals(j.getStatus().getNode())
          || j.getStatus().getPhase() != JobPhase.Admitted
          || mine.containsKey(j.getMetadata().getUid())) {
        continue;
      }
      AdmissionRecord held = j.getStatus().getAdmission();
      boolean process = held == null || held.getExecutor() != Executor.Pod;
      if (!process) {
        continue;
      }
      if (j.getMetadata().getDeletionTimestamp() != null) {
        mine.put(j.getMetadata().getUid(), report(j, JobPhase.Failed, "Deleted"));
      } else {
        processStarts.merge(j.getMetadata().getUid(), 1, Integer::sum);
        startedCpu.put(j.getMetadata().getUid(), requested(j));
        mine.put(j.getMetadata().getUid(), report(j, JobPhase.Running, null));
      }
    }
    mine.replaceAll(
        (uid, run) -> {
          BatchJob j = byUid.get(uid);
          boolean stop = j == null || j.getMetadata().getDeletionTimestamp() != null;
          return stop && run.getPhase() == JobPhase.Running ? ended(run, JobPhase.Failed) : run;
        });
    mine.keySet().removeIf(uid -> !byUid.containsKey(uid));
    for (Pod p : c.serverPods()) {
      if (node.equals(p.getSpec().getNodeName()) && p.getStatus() == null) {
        c.podPhase(p.getMetadata().getLabels().get("batch.octomy.io/job"), "Running");
      }
    }
    c.report(node, mine.values().toArray(NodeJob[]::new));
    c.heartbeat(node, h.clock.instant());
  }

  /** A started run ends by itself: its Pod's phase moves, or its process exits. */
  private void runEnds(String job, boolean succeeded) {
    BatchJob j = h.cluster.job(job);
    if (j == null) {
      return;
    }
    if (h.cluster.podNames().contains(job)) {
      h.cluster.podPhase(job, succeeded ? "Succeeded" : "Failed");
      return;
    }
    for (Map<String, NodeJob> mine : processes.values()) {
      NodeJob run = mine.get(j.getMetadata().getUid());
      if (run != null && run.getPhase() == JobPhase.Running) {
        mine.put(run.getUid(), ended(run, succeeded ? JobPhase.Succeeded : JobPhase.Failed));
      }
    }
  }

  private NodeJob report(BatchJob j, JobPhase phase, String reason) {
    NodeJob r = new NodeJob();
    r.setNamespace(NS);
    r.setName(j.getMetadata().getName());
    r.setUid(j.getMetadata().getUid());
    r.setPhase(phase);
    r.setReason(reason);
    r.setStartedAt(phase == JobPhase.Running ? "2026-01-01T00:00:00Z" : null);
    if (phase.isFinished()) {
      r.setFinishedAt("2026-01-01T00:00:00Z");
    }
    return r;
  }

  private static NodeJob ended(NodeJob run, JobPhase phase) {
    NodeJob r = new NodeJob();
    r.setNamespace(run.getNamespace());
    r.setName(run.getName());
    r.setUid(run.getUid());
    r.setPhase(phase);
    r.setExitCode(phase == JobPhase.Succeeded ? 0 : 143);
    r.setStartedAt(run.getStartedAt());
    r.setFinishedAt("2026-01-01T00:01:00Z");
    return r;
  }

  /** Inside the write that admits {@code admitted}: what its node then holds against its offer. */
  private void checkAdmission(BatchJob admitted, List<BatchJob> all) {
    AdmissionRecord rec = admitted.getStatus().getAdmission();
    if (rec == null) {
      violations.add(admitted.getMetadata().getName() + " admitted without a record");
      return;
    }
    if (requested(admitted) == 0) {
      // The rule is per requested resource: a job that requests nothing fits anywhere, even on a
      // node whose earlier admissions hold more than its offer now (a mode changed meanwhile).
      return;
    }
    String node = rec.getNode();
    admittedInPass.put(admitted.getMetadata().getUid(), passes);
    // The jobs holding a place on the node now, this one included, each with the offer of the mode
    // recorded for its admission and the pass that admitted it.
    Map<String, Long> heldCpu = new HashMap<>();
    Map<String, Long> offers = new HashMap<>();
    Map<String, Integer> pass = new HashMap<>();
    for (BatchJob j : all) {
      BatchJob current =
          j.getMetadata().getUid().equals(admitted.getMetadata().getUid()) ? admitted : j;
      if (holds(current) && node.equals(current.getStatus().getNode())) {
        AdmissionRecord r = current.getStatus().getAdmission();
        String name = current.getMetadata().getName();
        heldCpu.put(name, requested(current));
        offers.put(
            name, r == null ? Long.MIN_VALUE : MODES.offer(r.getMode(), CPU, CAPACITY.get(node)));
        pass.put(name, admittedInPass.getOrDefault(current.getMetadata().getUid(), -1));
      }
    }
    // Work that still runs there counts too, whether or not its job still holds a place: a
    // process the stand-in agent has not stopped yet (its job deleted, or gone). Runs on a node
    // that was deleted are left out: the node-loss rule releases them after the timeout.
    Set<String> counted = new HashSet<>();
    for (BatchJob j : all) {
      if (holds(j)) {
        counted.add(j.getMetadata().getUid());
      }
    }
    counted.add(admitted.getMetadata().getUid());
    long running = 0;
    for (NodeJob run : processes.getOrDefault(node, Map.of()).values()) {
      if (run.getPhase() == JobPhase.Running
          && !counted.contains(run.getUid())
          && !orphaned.contains(run.getUid())) {
        running += startedCpu.getOrDefault(run.getUid(), 0L);
      }
    }
    // The rule is sequential (allocated + request <= the offer of this job's mode) and one pass's
    // admission writes land in any order, so what must hold is that some order of deciding
    // satisfies it: earlier passes first, and within a pass the order by offer, smallest first,
    // the most forgiving one. So for each job holding a place: the runs above, the jobs of earlier
    // passes and those of its own pass whose offer is at most its own fit in its offer.
    for (Map.Entry<String, Long> holder : offers.entrySet()) {
      long offer = holder.getValue();
      int itsPass = pass.get(holder.getKey());
      if (heldCpu.get(holder.getKey()) == 0 || offer == Long.MIN_VALUE) {
        continue;
      }
      long held = running;
      for (Map.Entry<String, Long> other : offers.entrySet()) {
        int otherPass = pass.get(other.getKey());
        if (otherPass < itsPass || (otherPass == itsPass && other.getValue() <= offer)) {
          held += heldCpu.get(other.getKey());
        }
      }
      if (held > offer) {
        violations.add(
            "admitting "
                + admitted.getMetadata().getName()
                + " on "
                + node
                + " makes "
                + held
                + " held by the jobs whose offer is at most "
                + holder.getKey()
                + "'s, against its offer of "
                + offer
                + " (its mode: "
                + rec.getMode()
                + " for "
                + admitted.getMetadata().getName()
                + ")");
      }
    }
  }

  /** After every step: one start per job, one holder per lock, groups within their cap. */
  private void checkHolds(String when) {
    heldWhileDeleting |=
        h.cluster.serverJobs().stream()
            .anyMatch(j -> holds(j) && j.getMetadata().getDeletionTimestamp() != null);
    Map<String, Integer> starts = new HashMap<>(processStarts);
    h.cluster.podsCreatedByUid().forEach((uid, n) -> starts.merge(uid, n, Integer::sum));
    starts.forEach(
        (uid, n) -> {
          if (n > 1) {
            violations.add(when + ": " + uid + " started " + n + " times");
          }
        });
    Map<String, List<String>> lockHolders = new HashMap<>();
    Map<String, List<String>> groupHolders = new HashMap<>();
    for (BatchJob j : h.cluster.serverJobs()) {
      if (!holds(j) || j.getStatus().getAdmission() == null) {
        continue;
      }
      AdmissionRecord rec = j.getStatus().getAdmission();
      if (rec.getLocks() != null) {
        rec.getLocks()
            .forEach(
                k ->
                    lockHolders
                        .computeIfAbsent(k, x -> new ArrayList<>())
                        .add(j.getMetadata().getName()));
      }
      if (rec.getGroup() != null) {
        groupHolders
            .computeIfAbsent(rec.getGroup(), x -> new ArrayList<>())
            .add(j.getMetadata().getName());
      }
    }
    lockHolders.forEach(
        (k, holders) -> {
          if (holders.size() > 1) {
            violations.add(when + ": lock " + k + " held by " + holders);
          }
        });
    groupHolders.forEach(
        (g, holders) -> {
          if (holders.size() > 1) {
            violations.add(when + ": group " + g + " (maxRunning 1) held by " + holders);
          }
        });
  }

  private static boolean holds(BatchJob j) {
    return j.getStatus() != null
        && j.getStatus().getPhase() != null
        && j.getStatus().getPhase().holdsReservation();
  }

  private static long requested(BatchJob j) {
    AdmissionRecord rec = j.getStatus().getAdmission();
    Map<String, Long> r = rec != null ? rec.getRequests() : null;
    return r == null ? 0 : r.getOrDefault(CPU, 0L);
  }
}
