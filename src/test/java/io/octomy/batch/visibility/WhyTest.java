package io.octomy.batch.visibility;

import static io.octomy.batch.visibility.VisibilityWorld.CPU;
import static io.octomy.batch.visibility.VisibilityWorld.NOW;
import static io.octomy.batch.visibility.VisibilityWorld.NS;
import static io.octomy.batch.visibility.VisibilityWorld.job;
import static io.octomy.batch.visibility.VisibilityWorld.world;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.Gate;
import io.octomy.batch.admission.GateReport;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.QueueView;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table cases for "why": a named world, the job asked about, the gate the pass reports and the
 * blocker (reason, message and remedy, word for word) the answer must contain. Every gate and every
 * wording of its remedy has a case. Run times: type {@code solve} ran 10, 10, 12, 14 and 20
 * minutes, so a solve job started 5 minutes ago is expected to end in 7 (the median of the runs
 * longer than 5 minutes is 12).
 */
class WhyTest {

  record Case(
      String name,
      VisibilityWorld world,
      String subject,
      Class<? extends Gate> gate,
      Blocker expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Case scenario(
      String name, VisibilityWorld world, String subject, Class<? extends Gate> gate, Blocker b) {
    return new Case(name, world, subject, gate, b);
  }

  static Blocker blocker(String reason, String message, String remedy) {
    return new Blocker(reason, message, remedy);
  }

  /** A Drone node with 8000 cpu-milli and five recorded runs of solve. */
  static VisibilityWorld base() {
    return world().node("ws-1", NodeMode.Drone, CPU, 8000).runs("solve", 10, 10, 12, 14, 20);
  }

  /** A queue holding the test namespace, its jobs only on nodes labelled pool=gpu. */
  static final QueueView GPU_QUEUE =
      new QueueView(
          "gpu", null, 1, Map.of(), Map.of(), List.of(NS), Map.of(), Map.of("pool", "gpu"));

  static final String IN_7M = "2026-03-01T12:07:00Z (in 7m)";

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void explains(Case c) {
    JobKey subject = new JobKey(NS, c.subject());
    GateReport report =
        AdmissionPass.inspect(c.world().snapshot(), Set.of(subject)).report(subject).orElseThrow();
    assertThat(report.failing()).as("gates").anyMatch(c.gate()::isInstance);
    Explanation why = c.world().visibility().why(subject).orElseThrow();
    assertThat(why.blockers()).contains(c.expected());
    assertThat(why.blockers().get(0).reason())
        .as("the first blocker is the pass's reason")
        .isEqualTo(why.job().reason());
  }

  @Test
  void everyGateHasACase() {
    Set<Class<?>> covered = cases().map(Case::gate).collect(Collectors.toSet());
    assertThat(covered).containsAll(Arrays.asList(Gate.class.getPermittedSubclasses()));
  }

  @Test
  void aJobThatIsNotQueuedHasNoExplanation() {
    VisibilityWorld w = base().with(job("done").phase(JobPhase.Succeeded));
    assertThat(w.visibility().why(new JobKey(NS, "done"))).isEmpty();
  }

  @Test
  void aJobTheNextPassAdmitsHasNoBlocker() {
    VisibilityWorld w = base().with(job("small").requests(CPU, 1000));
    Explanation why = w.visibility().why(new JobKey(NS, "small")).orElseThrow();
    assertThat(why.blockers()).isEmpty();
    assertThat(why.job().reason()).isEqualTo("Admitted");
    assertThat(why.job().startBasis()).isEqualTo("admitted by the next pass.");
  }

  @Test
  void everyGateAJobFailsIsListedInPassOrder() {
    VisibilityWorld w =
        base()
            .budget(CPU, 3000)
            .with(
                job("holder").type("solve").running("ws-1", 5).requests(CPU, 3000).locks("k1"),
                job("other").type("solve").running("ws-1", 5).locks("k2").group("sim"),
                job("subject").requests(CPU, 6000).locks("k1", "k2").group("sim"));
    Explanation why = w.visibility().why(new JobKey(NS, "subject")).orElseThrow();
    assertThat(why.blockers().stream().map(Blocker::reason))
        .containsExactly(
            "WaitingForLock",
            "WaitingForLock",
            "WaitingForGroup",
            "WaitingForBudget",
            "WaitingForCapacity");
  }

  static Stream<Case> cases() {
    return Stream.of(
        scenario(
            "an invalid spec",
            base().with(job("bad").problem("Resource name cfd-cores has no domain.")),
            "bad",
            Gate.InvalidSpec.class,
            blocker(
                "InvalidSpec",
                "the spec is invalid: Resource name cfd-cores has no domain.",
                "Fix the manifest as the sentences say and apply it again; a job whose spec"
                    + " becomes valid is queued again.")),
        scenario(
            "a dependency cycle",
            base().with(job("a").after("b"), job("b").after("a")),
            "a",
            Gate.DependencyCycle.class,
            blocker(
                "DependencyCycle",
                "rejected: dependency cycle: a runs after b, b runs after a. Remove one of these"
                    + " after entries.",
                "Remove one of the after entries named; a job in a cycle never runs.")),
        scenario(
            "a failed dependency",
            base().with(job("broken").phase(JobPhase.Failed), job("next").after("broken")),
            "next",
            Gate.DependencyFailed.class,
            blocker(
                "DependencyFailed",
                "skipped: dependency broken failed.",
                "It will never run as it stands: once the cause is fixed, create broken again and"
                    + " then this job.")),
        scenario(
            "a running dependency",
            base().with(job("prep").type("solve").running("ws-1", 5), job("next").after("prep")),
            "next",
            Gate.Dependencies.class,
            blocker(
                "WaitingForDependency",
                "waits for prep (Running) to succeed first.",
                "It is free of its dependencies when prep ends, expected "
                    + IN_7M
                    + " (from 5 runs of solve).")),
        scenario(
            "two dependencies: the last to end frees it",
            base()
                .with(
                    job("prep").type("solve").running("ws-1", 5),
                    job("mesh").type("solve").running("ws-1", 1),
                    job("next").after("prep", "mesh")),
            "next",
            Gate.Dependencies.class,
            blocker(
                "WaitingForDependency",
                "waits for prep (Running) and mesh (Running) to succeed first.",
                "It is free of its dependencies when the last of them, mesh, ends, expected"
                    + " 2026-03-01T12:11:00Z (in 11m) (from 5 runs of solve).")),
        scenario(
            "a dependency not applied yet",
            base().with(job("next").after("not-yet")),
            "next",
            Gate.Dependencies.class,
            blocker(
                "WaitingForDependency",
                "waits for not-yet (does not exist in namespace studio) to succeed first.",
                "Create not-yet in namespace studio, or remove it from after.")),
        scenario(
            "a lock held by a running job",
            base()
                .with(
                    job("solve-41-a").type("solve").running("ws-1", 5).locks("subject/ernie"),
                    job("solve-41-b").type("solve").locks("subject/ernie")),
            "solve-41-b",
            Gate.Lock.class,
            blocker(
                "WaitingForLock",
                "lock subject/ernie is held by solve-41-a.",
                "It frees when solve-41-a ends, expected " + IN_7M + " (from 5 runs of solve).")),
        scenario(
            "a lock held by a job that ran longer than every recorded run",
            base()
                .with(
                    job("slow").type("solve").running("ws-1", 30).locks("k"),
                    job("waiter").locks("k")),
            "waiter",
            Gate.Lock.class,
            blocker(
                "WaitingForLock",
                "lock k is held by slow.",
                "It frees when slow ends, expected 2026-03-01T12:03:00Z (in 3m) (it has run longer"
                    + " than all 5 recorded runs of solve, so it is given a tenth of its run so"
                    + " far).")),
        scenario(
            "a lock held by a job of a type never timed",
            base()
                .with(
                    job("mesh-1").type("mesh").running("ws-1", 2).locks("k"),
                    job("waiter").locks("k")),
            "waiter",
            Gate.Lock.class,
            blocker(
                "WaitingForLock",
                "lock k is held by mesh-1.",
                "It frees when mesh-1 ends, expected 2026-03-01T12:10:00Z (in 10m) (no timed runs"
                    + " of mesh yet: assumed 12m, the median of 5 runs in namespace studio).")),
        scenario(
            "a lock held where nothing was ever timed",
            world()
                .node("ws-1", NodeMode.Drone, CPU, 8000)
                .with(
                    job("first").type("solve").running("ws-1", 4).locks("k"),
                    job("waiter").locks("k")),
            "waiter",
            Gate.Lock.class,
            blocker(
                "WaitingForLock",
                "lock k is held by first.",
                "It frees when first ends, expected 2026-03-01T12:06:00Z (in 6m) (no timed runs of"
                    + " solve and none in namespace studio yet: assumed 10m).")),
        scenario(
            "a full group",
            base()
                .with(
                    job("sim-1").type("solve").running("ws-1", 5).group("sim"),
                    job("sim-2").group("sim")),
            "sim-2",
            Gate.Group.class,
            blocker(
                "WaitingForGroup",
                "group sim is full in namespace studio: at most 1 of it may be admitted or"
                    + " running at once, and sim-1 is.",
                "A slot frees when sim-1 ends, expected "
                    + IN_7M
                    + " (from 5 runs of solve); or raise groups.sim.maxRunning to 2 in the"
                    + " policy.")),
        scenario(
            "a group whose cap is 0",
            base().group("frozen", 0).with(job("ice").group("frozen")),
            "ice",
            Gate.Group.class,
            blocker(
                "WaitingForGroup",
                "group frozen has maxRunning 0: no job of it may run.",
                "Raise groups.frozen.maxRunning in the policy above 0.")),
        scenario(
            "a queue at its max",
            base()
                .queue(new QueueView("team", null, 1, Map.of(), Map.of(CPU, 4000L), List.of(NS)))
                .with(
                    job("big").type("solve").running("ws-1", 5).requests(CPU, 3000),
                    job("next").requests(CPU, 2000)),
            "next",
            Gate.Queue.class,
            blocker(
                "WaitingForQueueMax",
                "waiting for queue max: need 2000 octomy.io/cpu-milli, 3000 already admitted or"
                    + " running in queue team, its max is 4000.",
                "It frees as running jobs of the queue end; or a cluster administrator raises the"
                    + " queue's spec.max (kubectl edit bq NAME).")),
        scenario(
            "another queue reclaiming its min",
            base()
                .queue(
                    new QueueView("team", null, 1, Map.of(CPU, 4000L), Map.of(), List.of("team")))
                .with(
                    job("big").type("solve").running("ws-1", 5).requests(CPU, 6000),
                    job("t2").namespace("team").requests(CPU, 4000),
                    job("next").requests(CPU, 2000).queuedMinutesAgo(30)),
            "next",
            Gate.QueueMinimum.class,
            blocker(
                "HeldForQueueMinimum",
                "held for queue team, which is reclaiming its min: it holds 0 of its min of 4000"
                    + " octomy.io/cpu-milli, so node ws-1, where this job would fit, is kept for"
                    + " its job team/t2; capacity that frees up there goes to team first.",
                "t2 is expected to start "
                    + IN_7M
                    + ". The hold ends once queue team holds its min or has no waiting job that"
                    + " fits; a cluster administrator may lower its spec.min (kubectl edit bq"
                    + " team).")),
        scenario(
            "a namespace budget in use",
            base()
                .budget(CPU, 4000)
                .with(
                    job("big").type("solve").running("ws-1", 5).requests(CPU, 3000),
                    job("next").requests(CPU, 2000)),
            "next",
            Gate.Budget.class,
            blocker(
                "WaitingForBudget",
                "budget of namespace studio for octomy.io/cpu-milli: need 2000, 3000 already"
                    + " admitted or running, budget is 4000.",
                "It fits the budget now if the request is at most 1000 octomy.io/cpu-milli;"
                    + " enough frees when big ends, expected "
                    + IN_7M
                    + " (from 5 runs of solve); or raise budgets.studio.octomy.io/cpu-milli in"
                    + " the policy to at least 5000.")),
        scenario(
            "a namespace budget used up",
            base()
                .budget(CPU, 3000)
                .with(
                    job("big").type("solve").running("ws-1", 5).requests(CPU, 3000),
                    job("next").requests(CPU, 2000)),
            "next",
            Gate.Budget.class,
            blocker(
                "WaitingForBudget",
                "budget of namespace studio for octomy.io/cpu-milli: need 2000, 3000 already"
                    + " admitted or running, budget is 3000.",
                "Enough frees when big ends, expected "
                    + IN_7M
                    + " (from 5 runs of solve); or raise budgets.studio.octomy.io/cpu-milli in"
                    + " the policy to at least 5000.")),
        scenario(
            "a request above the whole budget",
            base().budget(CPU, 1000).with(job("next").requests(CPU, 2000)),
            "next",
            Gate.Budget.class,
            blocker(
                "WaitingForBudget",
                "budget of namespace studio for octomy.io/cpu-milli: need 2000, 0 already"
                    + " admitted or running, budget is 1000.",
                "The request is more than the whole budget: lower it to at most 1000"
                    + " octomy.io/cpu-milli, or raise budgets.studio.octomy.io/cpu-milli in the"
                    + " policy to at least 2000.")),
        scenario(
            "a lock a starving job needs too",
            starving().with(job("late").locks("k")),
            "late",
            Gate.Contested.class,
            blocker(
                "HeldForStarvingJob",
                "held for starving job starved: it needs lock k too, and comes first.",
                "starved is expected to start " + IN_7M + ". This job can follow it.")),
        scenario(
            "the node kept for a starving job",
            starving().with(job("small").requests(CPU, 2000)),
            "small",
            Gate.HeldNode.class,
            blocker(
                "HeldForStarvingJob",
                "node ws-1 is kept for starving job starved, and no other node has room for this"
                    + " job now.",
                "starved is expected to start " + IN_7M + ". The hold ends then.")),
        scenario(
            "a retry backing off: it waits, and is decided again when the back-off ends",
            base().with(job("flaky").requests(CPU, 1000).backingOffSeconds(30)),
            "flaky",
            Gate.BackingOff.class,
            blocker(
                "BackingOff",
                "backing off after a failed run: it may run again from 2026-03-01T12:00:30Z on.",
                "Wait: it is decided again at its place by the time it was queued once the back-off"
                    + " ends; kubectl describe bj flaky shows its earlier runs (status.runs) and"
                    + " kubectl octomy logs flaky --run N their output.")),
        scenario(
            "a held job: only its release helps, whatever else it would wait for",
            base().with(job("paused").requests(CPU, 100_000).locks("k").suspended()),
            "paused",
            Gate.Held.class,
            blocker(
                "Held",
                "held: spec.suspend is true, so this job takes no part in admission until it is"
                    + " released; release it with kubectl patch bj paused -n studio --type=merge"
                    + " -p '{\"spec\":{\"suspend\":false}}' and it keeps its place by the time"
                    + " it was queued.",
                "Release it with kubectl patch bj paused -n studio --type=merge -p"
                    + " '{\"spec\":{\"suspend\":false}}'; it is then decided at its place by the"
                    + " time it was queued.")),
        scenario(
            "a nodeSelector no ready node's labels match",
            base().with(job("picky").requests(CPU, 1000).nodeSelector("disk", "ssd")),
            "picky",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "no ready node has the labels disk=ssd that spec.nodeSelector asks for.",
                "Label a node that may run it with kubectl label bn NODE disk=ssd, or change"
                    + " spec.nodeSelector; kubectl get bn --show-labels lists the nodes' labels.")),
        scenario(
            "a queue's nodeSelector no ready node's labels match names the queue",
            base().queue(GPU_QUEUE).with(job("trainer").requests(CPU, 1000)),
            "trainer",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "no ready node has the labels pool=gpu that queue gpu's nodeSelector asks for.",
                "Label a node that may run it with kubectl label bn NODE pool=gpu, or change the"
                    + " selector; kubectl get bn --show-labels lists the nodes' labels.")),
        scenario(
            "a job's nodeSelector at odds with its queue's",
            base()
                .queue(GPU_QUEUE)
                .with(job("odd").requests(CPU, 1000).nodeSelector("pool", "cpu")),
            "odd",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "spec.nodeSelector asks for pool=cpu, and queue gpu's nodeSelector for pool=gpu;"
                    + " drop that label from the job, or submit it where another queue holds it.",
                "Until they agree no node can run it; kubectl get bq -o yaml shows each queue's"
                    + " nodeSelector.")),
        scenario(
            "capacity in use on the only node",
            base()
                .with(
                    job("render").type("solve").running("ws-1", 5).requests(CPU, 6000),
                    job("next").requests(CPU, 4000)),
            "next",
            Gate.Capacity.class,
            blocker(
                "WaitingForCapacity",
                "waiting for capacity: need 4000 octomy.io/cpu-milli; ws-1 (Drone) has 2000 of"
                    + " 8000 octomy.io/cpu-milli free, 2000 octomy.io/cpu-milli short.",
                "It fits on ws-1 now if the request is at most 2000 octomy.io/cpu-milli; enough"
                    + " frees on ws-1 when render ends, expected "
                    + IN_7M
                    + " (from 5 runs of solve).")),
        scenario(
            "capacity all taken: only ends help",
            base()
                .with(
                    job("render").type("solve").running("ws-1", 5).requests(CPU, 8000),
                    job("next").requests(CPU, 4000)),
            "next",
            Gate.Capacity.class,
            blocker(
                "WaitingForCapacity",
                "waiting for capacity: need 4000 octomy.io/cpu-milli; ws-1 (Drone) has 0 of 8000"
                    + " octomy.io/cpu-milli free, 4000 octomy.io/cpu-milli short.",
                "Enough frees on ws-1 when render ends, expected "
                    + IN_7M
                    + " (from 5 runs of solve).")),
        scenario(
            "a request above every offer, a mode that would hold it",
            world()
                .node("ws-1", NodeMode.Interactive, CPU, 8000)
                .with(job("big").requests(CPU, 6000)),
            "big",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "no ready node can hold it in its current mode: need 6000 octomy.io/cpu-milli;"
                    + " ws-1 (Interactive) offers 4000 of the 6000 octomy.io/cpu-milli asked.",
                "It fits the offer of ws-1 if the request is at most 4000 octomy.io/cpu-milli, or"
                    + " if ws-1's mode becomes Background.")),
        scenario(
            "a gang the nodes have room for only some replicas of now",
            base()
                .with(
                    job("render").type("solve").running("ws-1", 5).requests(CPU, 4000),
                    job("gang").requests(CPU, 2000).replicas(3)),
            "gang",
            Gate.Capacity.class,
            blocker(
                "WaitingForCapacity",
                "waiting for capacity: a gang of 3 needs 2000 octomy.io/cpu-milli for each replica,"
                    + " all at once; the nodes have room for 2 now, and no replica holds anything"
                    + " until all 3 fit. For one replica: need 2000 octomy.io/cpu-milli; ws-1"
                    + " (Drone) has 4000 of 8000 octomy.io/cpu-milli free.",
                "It starts when running jobs have made room for every replica at once; see its"
                    + " expected start.")),
        scenario(
            "a gang whose replicas the full offers can never hold together",
            base().with(job("wide").requests(CPU, 2000).replicas(5)),
            "wide",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "no node fits: a gang of 5 needs 2000 octomy.io/cpu-milli for each replica, all at"
                    + " once; the ready nodes' full offers hold 4 of them together, so it can never"
                    + " start whole.",
                "Lower spec.replicas to 4 or the requests (delete and re-create the job), add"
                    + " nodes, or raise a node's mode.")),
        scenario(
            "a request above every capacity",
            world().node("ws-1", NodeMode.Drone, CPU, 8000).with(job("huge").requests(CPU, 9000)),
            "huge",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "no ready node can hold it in its current mode: need 9000 octomy.io/cpu-milli;"
                    + " ws-1 (Drone) offers 8000 of the 9000 octomy.io/cpu-milli asked.",
                "It fits the offer of ws-1 if the request is at most 8000"
                    + " octomy.io/cpu-milli.")),
        scenario(
            "a resource no node has at all",
            world()
                .node("ws-1", NodeMode.Drone, CPU, 8000)
                .with(job("solver").requests(CPU, 1000).requests("example.com/su2-processes", 4)),
            "solver",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "no ready node can hold it in its current mode: need 4 example.com/su2-processes"
                    + " and 1000 octomy.io/cpu-milli on one node; ws-1 (Drone) offers 0 of the 4"
                    + " example.com/su2-processes asked.",
                "ws-1 has no example.com/su2-processes at all: give it some with its agent's"
                    + " --capacity example.com/su2-processes=N or its BatchNode's spec.resources"
                    + " (kubectl patch bn ws-1 --type=merge -p"
                    + " '{\"spec\":{\"resources\":{\"example.com/su2-processes\":N}}}'), or leave"
                    + " it out of the request.")),
        scenario(
            "no ready node",
            world()
                .node(
                    new NodeView(
                        "ws-1",
                        NodeMode.Drone,
                        null,
                        Map.of(CPU, 8000L),
                        NOW.minusSeconds(600),
                        true))
                .with(job("any").requests(CPU, 1000)),
            "any",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "no node is ready: none has an agent reporting it Ready.",
                "Each node's Ready condition says why (kubectl describe bn): start an agent"
                    + " where none reports, or do what the condition's message says, such as"
                    + " matching spec.executor to the agent's.")),
        scenario(
            "a BestEffort job while the only node is busy",
            world()
                .node(
                    new NodeView(
                        "ws-1",
                        NodeMode.Drone,
                        null,
                        Map.of(CPU, 8000L),
                        NOW.minusSeconds(5),
                        true,
                        Map.of(CPU, 9000L)))
                .with(job("thumbnail")),
            "thumbnail",
            Gate.Deferred.class,
            blocker(
                "BestEffortDeferred",
                "deferred: a BestEffort job waits while every ready node it could run on is busy:"
                    + " ws-1 (Drone) measures 9000 octomy.io/cpu-milli in use, at or above its"
                    + " offer of 8000.",
                "It starts once a node's measured use drops below its offer, or once it has"
                    + " waited longer than 1h; it is expected to start 2026-03-01T13:00:00Z (in"
                    + " 1h).")),
        scenario(
            "every ready node Off",
            world().node("ws-1", NodeMode.Off, CPU, 8000).with(job("any").requests(CPU, 1000)),
            "any",
            Gate.Capacity.class,
            blocker(
                "NoNodeFits",
                "every ready node is in mode Off for this job.",
                "Set a node's mode (its ownMode, for its own work) to Interactive, Background or"
                    + " Drone.")));
  }

  /**
   * A starving job (queued two hours ago) that needs 6000 of ws-1's 8000 while a solve job started
   * five minutes ago holds 4000: ws-1 is held for it until that job ends in 7 minutes.
   */
  static VisibilityWorld starving() {
    return base()
        .with(
            job("r").type("solve").running("ws-1", 5).requests(CPU, 4000),
            job("starved").requests(CPU, 6000).locks("k").queuedMinutesAgo(120));
  }

  static List<String> reasons(Explanation e) {
    return e.blockers().stream().map(Blocker::reason).toList();
  }
}
