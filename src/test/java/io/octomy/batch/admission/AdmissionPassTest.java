package io.octomy.batch.admission;

import static io.octomy.batch.admission.Expected.admitted;
import static io.octomy.batch.admission.Expected.rejected;
import static io.octomy.batch.admission.Expected.skipped;
import static io.octomy.batch.admission.Expected.waits;
import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.GPU;
import static io.octomy.batch.admission.Fixtures.MEM;
import static io.octomy.batch.admission.Fixtures.SU2;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.world;
import static io.octomy.batch.vocabulary.NodeMode.Background;
import static io.octomy.batch.vocabulary.NodeMode.Interactive;
import static io.octomy.batch.vocabulary.NodeMode.Off;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.Fixtures.World;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Quantities;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven cases: a named world in, the expected decisions out. Every rule of docs/rules.md
 * ("How a decision is made", "Resources, requests and limits") that the pass implements, and every
 * reason code it can produce, has a case here.
 */
class AdmissionPassTest {

  /** One named case. Job names without a slash are in the default namespace. */
  static final class Case {
    final String name;
    final World world;
    final Map<String, Expected> expected = new LinkedHashMap<>();
    Consumer<AdmissionResult> extra = r -> {};

    Case(String name, World world) {
      this.name = name;
      this.world = world;
    }

    Case expect(String job, Expected e) {
      expected.put(job, e);
      return this;
    }

    Case then(Consumer<AdmissionResult> check) {
      extra = check;
      return this;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Case scenario(String name, World world) {
    return new Case(name, world);
  }

  static JobKey key(String job) {
    int slash = job.indexOf('/');
    return slash < 0
        ? new JobKey(Fixtures.NS, job)
        : new JobKey(job.substring(0, slash), job.substring(slash + 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void decides(Case c) {
    AdmissionResult result = AdmissionPass.decide(c.world.snapshot());
    c.expected.forEach((job, e) -> e.check(job, result.decisions().get(key(job))));
    c.extra.accept(result);
  }

  @Test
  void everyReasonThePassCanGiveHasACase() {
    Set<Reason> covered =
        cases()
            .flatMap(c -> c.expected.values().stream())
            .map(Expected::reason)
            .collect(Collectors.toSet());
    // Succeeded and Failed are written for finished jobs, never by the pass.
    Set<Reason> producible = EnumSet.complementOf(EnumSet.of(Reason.Succeeded, Reason.Failed));
    assertThat(covered).containsAll(producible);
  }

  static Stream<Case> cases() {
    return Stream.of(
            rulesCases(),
            HoldAndSelectorCases.cases(),
            QueueCases.cases(),
            QueueSelectorCases.cases(),
            RetryCases.cases(),
            GangCases.cases())
        .flatMap(c -> c);
  }

  private static Stream<Case> rulesCases() {
    return Stream.of(
        // ---- admission and order ---------------------------------------------------------
        scenario(
                "a job that fits is admitted, with its effective priority",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("a").requests(CPU, 2000).queuedMinutesAgo(5)))
            .expect("a", admitted("ws-1").priority(150).starving(false))
            .then(
                r ->
                    assertThat(r.admissions())
                        .containsExactly(new Admission(key("a"), "ws-1", 150, false))),
        scenario(
                "zero is nothing: a zero request equal to its limit is BestEffort, not Guaranteed",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("nothing").guaranteed("example.com/nothing", 0)))
            .expect("nothing", admitted("ws-1").priority(0)),
        scenario(
                "Guaranteed before Burstable when only one fits",
                world()
                    .with(node("ws-1").capacity(CPU, 2000))
                    .with(
                        job("burst").requests(CPU, 2000).limits(CPU, 4000),
                        job("guar").guaranteed(CPU, 2000)))
            .expect("guar", admitted("ws-1").priority(200))
            .expect("burst", waits(Reason.WaitingForCapacity).priority(100)),
        scenario(
                "aging: an old BestEffort job outranks a fresh Guaranteed one",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("fresh-solve").guaranteed(CPU, 2000).locks("subject/ernie"),
                        job("old-thumbnail").locks("subject/ernie").queuedMinutesAgo(25)))
            .expect("old-thumbnail", admitted("ws-1").priority(250))
            .expect(
                "fresh-solve",
                waits(Reason.WaitingForLock).priority(200).on("subject/ernie", "old-thumbnail")),
        scenario(
                "aging ceiling: nothing outranks everything forever",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("ancient").locks("subject/ernie").queuedMinutesAgo(600),
                        job("solve")
                            .guaranteed(CPU, 2000)
                            .locks("subject/ernie")
                            .queuedMinutesAgo(11)))
            .expect("solve", admitted("ws-1").priority(310))
            .expect("ancient", waits(Reason.WaitingForLock).priority(300)),
        scenario(
                "ties of priority go to the older job, whatever its name",
                world()
                    .with(node("ws-1").capacity(CPU, 2000))
                    .with(
                        job("aa-new").requests(CPU, 2000).queuedSecondsAgo(61),
                        job("zz-old").requests(CPU, 2000).queuedSecondsAgo(119)))
            .expect("zz-old", admitted("ws-1").priority(110))
            .expect("aa-new", waits(Reason.WaitingForCapacity).priority(110)),
        scenario(
                "ties of priority and queuedAt go by namespace, then name",
                world()
                    .with(node("ws-1").capacity(CPU, 2000))
                    .with(
                        job("alpha").requests(CPU, 2000),
                        job("zeta").namespace("alpha").requests(CPU, 2000)))
            .expect("alpha/zeta", admitted("ws-1"))
            .expect("alpha", waits(Reason.WaitingForCapacity)),
        scenario(
                "only Queued jobs get a decision",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("q").requests(CPU, 1000),
                        job("run").requests(CPU, 1000).running("ws-1"),
                        job("adm").requests(CPU, 1000).admitted("ws-1"),
                        job("done").phase(JobPhase.Succeeded),
                        job("broken").phase(JobPhase.Failed)))
            .expect("q", admitted("ws-1"))
            .then(
                r -> {
                  assertThat(r.decisions().keySet()).containsExactly(key("q"));
                  assertThat(r.decision(key("run"))).isEmpty();
                  assertThat(r.countsByReason()).isEqualTo(Map.of(Reason.Admitted, 1));
                }),
        scenario(
                "a node still running work whose job is gone is full until its agent reports it"
                    + " ended; a job that requests nothing still goes there",
                world()
                    .with(node("ws-1").capacity(CPU, 8000).strayRun("default/forced-out"))
                    .with(job("solve").guaranteed(CPU, 1000), job("nothing")))
            .expect(
                "solve",
                waits(Reason.WaitingForCapacity)
                    .message(
                        "waiting for capacity: need 1000 octomy.io/cpu-milli; the most free on a"
                            + " ready node is 0 (ws-1, Drone; full until its agent reports"
                            + " default/forced-out stopped, a run whose job is gone)."))
            .expect("nothing", admitted("ws-1")),

        // ---- BestEffort is deferred first when the machine is busy ---------------------------
        scenario(
                "BestEffort is deferred on a busy node, with the numbers",
                world()
                    .with(node("ws-1").mode(Background).capacity(CPU, 16000).usage(CPU, 15000))
                    .with(job("thumbnail")))
            .expect(
                "thumbnail",
                waits(Reason.BestEffortDeferred)
                    .message(
                        "deferred: a BestEffort job waits while every ready node it could run on"
                            + " is busy: ws-1 measures 15000 octomy.io/cpu-milli in use, at or above"
                            + " its offer of 12000 (Background). It starts once a node's use drops"
                            + " below its offer, or once it has waited longer than 1h.")),
        scenario(
                "BestEffort goes to a node that is not busy",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 16000).usage(CPU, 16000),
                        node("ws-2").mode(Interactive).capacity(CPU, 16000).usage(CPU, 7999))
                    .with(job("thumbnail")))
            .expect("thumbnail", admitted("ws-2")),
        scenario(
                "busy is measured use, including work that is not ours, against the offer",
                world()
                    .with(
                        node("ws-1")
                            .mode(Interactive)
                            .capacity(CPU, 16000)
                            .capacity(MEM, 1000)
                            .usage(CPU, 100)
                            .usage(MEM, 250))
                    .with(job("thumbnail")))
            .expect(
                "thumbnail",
                waits(Reason.BestEffortDeferred).mentions("250 octomy.io/memory-bytes")),
        scenario(
                "Guaranteed and Burstable are not deferred by a busy node",
                world()
                    .with(node("ws-1").capacity(CPU, 16000).usage(CPU, 16000))
                    .with(
                        job("solve").guaranteed(CPU, 2000),
                        job("mesh").requests(CPU, 1000).limits(CPU, 4000),
                        job("limits-only").limits(CPU, 4000)))
            .expect("solve", admitted("ws-1"))
            .expect("mesh", admitted("ws-1"))
            .expect("limits-only", admitted("ws-1")),
        scenario(
                "a starving BestEffort job is deferred no longer",
                world()
                    .with(node("ws-1").capacity(CPU, 16000).usage(CPU, 16000))
                    .with(job("thumbnail").queuedMinutesAgo(61)))
            .expect("thumbnail", admitted("ws-1").starving(true)),

        // ---- invalid spec ---------------------------------------------------------------
        scenario(
                "an invalid spec is rejected with its problems joined",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("bad")
                            .requests("cfd-cores", 4)
                            .problem(
                                "Resource name cfd-cores has no domain; write example.com/cfd-cores.")
                            .problem(
                                "Request cfd-cores 4 is above its limit 2; lower the request.")))
            .expect(
                "bad",
                rejected(Reason.InvalidSpec)
                    .message(
                        "Resource name cfd-cores has no domain; write example.com/cfd-cores."
                            + " Request cfd-cores 4 is above its limit 2; lower the request.")),
        scenario(
                "a negative quantity is invalid even when validation missed it",
                world().with(node("ws-1").capacity(CPU, 8000)).with(job("neg").requests(CPU, -5)))
            .expect(
                "neg",
                rejected(Reason.InvalidSpec)
                    .message(
                        "Request octomy.io/cpu-milli is -5; quantities are whole numbers from 0 to"
                            + " 9007199254740991.")),
        scenario(
                "a quantity above 2^53 - 1 is invalid even when validation missed it",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("huge").requests(CPU, 1000).limits(GPU, Long.MAX_VALUE)))
            .expect(
                "huge",
                rejected(Reason.InvalidSpec)
                    .message(
                        "Limit octomy.io/gpu is 9223372036854775807; quantities are whole numbers"
                            + " from 0 to 9007199254740991.")),
        scenario(
                "the spec is checked before dependencies",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("bad").after("missing").problem("Template is empty; add a container.")))
            .expect("bad", rejected(Reason.InvalidSpec)),

        // ---- dependencies ---------------------------------------------------------------
        scenario(
                "a succeeded dependency lets the job run",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("prep").phase(JobPhase.Succeeded),
                        job("sim").after("prep").requests(CPU, 1000)))
            .expect("sim", admitted("ws-1")),
        scenario(
                "an unfinished dependency is waited for, even one admitted in the same pass",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("prep").running("ws-1"),
                        job("prep2").requests(CPU, 1000),
                        job("sim").after("prep"),
                        job("sim2").after("prep2", "prep")))
            .expect("prep2", admitted("ws-1"))
            .expect(
                "sim",
                waits(Reason.WaitingForDependency)
                    .message("waiting for dependency: prep must succeed first.")
                    .on("after", "prep"))
            .expect(
                "sim2",
                waits(Reason.WaitingForDependency)
                    .message("waiting for dependency: prep2, prep must succeed first.")
                    .on("after", "prep2", "after", "prep")),
        scenario(
                "a missing dependency is waited for (GitOps applies in any order)",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("prep").namespace("other").phase(JobPhase.Succeeded),
                        job("sim").after("prep", "preprocess-41")))
            .expect(
                "sim",
                waits(Reason.WaitingForDependency)
                    .message(
                        "waiting for dependency: prep, preprocess-41 do not exist in namespace"
                            + " studio: it may not be applied yet; a dependency that ran and was"
                            + " deleted counts as missing too, so re-create it or remove it from"
                            + " after.")
                    .on("after", "prep", "after", "preprocess-41")),
        scenario(
                "a failed dependency skips the job, naming it",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("prep").phase(JobPhase.Failed), job("sim").after("prep")))
            .expect("sim", skipped("prep").message("skipped: dependency prep failed.")),
        scenario(
                "a skipped or rejected dependency skips the job too",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("x").phase(JobPhase.Skipped),
                        job("y").phase(JobPhase.Rejected),
                        job("p").after("x"),
                        job("q").after("y")))
            .expect("p", skipped("x").message("skipped: dependency x was skipped."))
            .expect("q", skipped("y").message("skipped: dependency y was rejected.")),
        scenario(
                "transitive skip: the whole queued subtree in one pass, naming the ancestor",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("a").phase(JobPhase.Failed),
                        job("ok").phase(JobPhase.Succeeded),
                        job("d").after("c"),
                        job("c").after("b", "ok"),
                        job("b").after("a"),
                        job("unrelated").after("ok")))
            .expect("b", skipped("a").message("skipped: dependency a failed."))
            .expect(
                "c",
                skipped("a").message("skipped: ancestor a failed (reached through dependency b)."))
            .expect(
                "d",
                skipped("a").message("skipped: ancestor a failed (reached through dependency c)."))
            .expect("unrelated", admitted("ws-1")),
        scenario(
                "a dependency rejected in this pass (invalid spec) skips its dependants",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("bad").problem("Quantity 0.5 is not whole; write 500 in cpu-milli."),
                        job("good").after("bad")))
            .expect("bad", rejected(Reason.InvalidSpec))
            .expect(
                "good",
                skipped("bad").message("skipped: dependency bad is rejected for an invalid spec.")),
        scenario(
                "a cycle rejects its members, naming it; its dependants are skipped",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("b").after("a"), job("a").after("b"), job("c").after("a")))
            .expect(
                "a",
                rejected(Reason.DependencyCycle)
                    .message(
                        "rejected: dependency cycle: a runs after b, b runs after a."
                            + " Remove one of these after entries."))
            .expect("b", rejected(Reason.DependencyCycle))
            .expect(
                "c",
                skipped("a").message("skipped: dependency a is rejected for a dependency cycle.")),
        scenario(
                "a job closing a cycle with one already rejected for it is rejected too, not skipped",
                // Only b's rejection landed last pass (a's write was refused with 409): a is still
                // in the cycle.
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("b").after("a").phase(JobPhase.Rejected),
                        job("a").after("b"),
                        job("c").after("b")))
            .expect(
                "a",
                rejected(Reason.DependencyCycle)
                    .message(
                        "rejected: dependency cycle: a runs after b, b runs after a."
                            + " Remove one of these after entries."))
            .expect("c", skipped("b").message("skipped: dependency b was rejected.")),
        scenario(
                "a job after one rejected for an invalid spec is skipped, even if that one names it",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("bad")
                            .after("good")
                            .problem("Quantity 0.5 is not whole; write 500 in cpu-milli.")
                            .phase(JobPhase.Rejected),
                        job("good").after("bad")))
            .expect("good", skipped("bad").message("skipped: dependency bad was rejected.")),
        scenario(
                "a three-job cycle is named in order",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("z").after("x"), job("x").after("y"), job("y").after("z")))
            .expect(
                "y",
                rejected(Reason.DependencyCycle)
                    .message(
                        "rejected: dependency cycle: x runs after y, y runs after z, z runs after x."
                            + " Remove one of these after entries.")),
        scenario(
                "a job after itself is a cycle",
                world().with(node("ws-1").capacity(CPU, 8000)).with(job("loop").after("loop")))
            .expect(
                "loop",
                rejected(Reason.DependencyCycle)
                    .message(
                        "rejected: dependency cycle: loop runs after loop."
                            + " Remove one of these after entries.")),
        scenario(
                "dependencies are checked before locks",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("holder").locks("k").running("ws-1"),
                        job("j").locks("k").after("later")))
            .expect("j", waits(Reason.WaitingForDependency)),

        // ---- locks ----------------------------------------------------------------------
        scenario(
                "lock waits with waiting_on (seed 003)",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("preprocess-40").locks("subject/ernie").running("ws-1"),
                        job("mesh-7").locks("subject/bert").admitted("ws-1"),
                        job("simulate-41").locks("subject/ernie", "subject/elmo", "subject/bert")))
            .expect(
                "simulate-41",
                waits(Reason.WaitingForLock)
                    .message(
                        "waiting for locks: subject/bert held by mesh-7;"
                            + " subject/ernie held by preprocess-40.")
                    .on("subject/bert", "mesh-7", "subject/ernie", "preprocess-40")),
        scenario(
                "a lock taken in the pass is held for the next job",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("b").locks("subject/ernie"),
                        job("a").locks("subject/ernie").queuedMinutesAgo(1)))
            .expect("a", admitted("ws-1"))
            .expect(
                "b",
                waits(Reason.WaitingForLock)
                    .message("waiting for lock subject/ernie held by a.")
                    .on("subject/ernie", "a")),
        scenario(
                "locks are scoped to the namespace",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("other-holder")
                            .namespace("other")
                            .locks("subject/ernie")
                            .running("ws-1"),
                        job("mine").locks("subject/ernie")))
            .expect("mine", admitted("ws-1")),
        scenario(
                "a job admitted to a node that is gone still holds its lock",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("ghost").locks("k").admitted("gone"), job("j").locks("k")))
            .expect("j", waits(Reason.WaitingForLock).on("k", "ghost")),

        // ---- groups ---------------------------------------------------------------------
        scenario(
                "one job per product: a group not listed runs one at a time",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("sim-1").group("simulator").running("ws-1"),
                        job("sim-2").group("simulator")))
            .expect(
                "sim-2",
                waits(Reason.WaitingForGroup)
                    .message(
                        "waiting for group simulator: at most 1 job of this group may be"
                            + " admitted or running at once in namespace studio, and 1 is (sim-1).")
                    .on("simulator", "sim-1")),
        scenario(
                "a group's maxRunning counts admissions of the same pass",
                world()
                    .group("render", 2)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("r1").group("render"),
                        job("r2").group("render"),
                        job("r3").group("render")))
            .expect("r1", admitted("ws-1"))
            .expect("r2", admitted("ws-1"))
            .expect("r3", waits(Reason.WaitingForGroup).on("render", "r1", "render", "r2")),
        scenario(
                "groups are scoped to the namespace",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("sim-1").namespace("other").group("simulator").running("ws-1"),
                        job("sim-2").group("simulator")))
            .expect("sim-2", admitted("ws-1")),
        scenario(
                "locks are checked before the group cap",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("sim-1").group("simulator").locks("k").running("ws-1"),
                        job("sim-2").group("simulator").locks("k")))
            .expect("sim-2", waits(Reason.WaitingForLock)),

        // ---- budgets --------------------------------------------------------------------
        scenario(
                "budget fan-out of 4 fake jobs on an 8-cpu budget (seed 003)",
                world()
                    .budget("studio", CPU, 8000)
                    .with(node("ws-1").capacity(CPU, 16000))
                    .with(
                        job("fake-1").requests(CPU, 3000),
                        job("fake-2").requests(CPU, 3000),
                        job("fake-3").requests(CPU, 3000),
                        job("fake-4").requests(CPU, 3000)))
            .expect("fake-1", admitted("ws-1"))
            .expect("fake-2", admitted("ws-1"))
            .expect(
                "fake-3",
                waits(Reason.WaitingForBudget)
                    .message(
                        "waiting for budget: need 3000 octomy.io/cpu-milli, 6000 already admitted or"
                            + " running in namespace studio, budget is 8000."))
            .expect("fake-4", waits(Reason.WaitingForBudget)),
        scenario(
                "a budget filled exactly admits all four",
                world()
                    .budget("studio", CPU, 8000)
                    .with(node("ws-1").capacity(CPU, 16000))
                    .with(
                        job("fake-1").requests(CPU, 2000),
                        job("fake-2").requests(CPU, 2000),
                        job("fake-3").requests(CPU, 2000),
                        job("fake-4").requests(CPU, 2000)))
            .then(r -> assertThat(r.admissions()).hasSize(4)),
        scenario(
                "a budget counts running jobs of its namespace only, and listed resources only",
                world()
                    .budget("studio", CPU, 8000)
                    .with(node("ws-1").capacity(CPU, 32000).capacity(MEM, 64_000_000_000L))
                    .with(
                        job("r1").requests(CPU, 6000).running("ws-1"),
                        job("o1").namespace("other").requests(CPU, 6000).running("ws-1"),
                        job("j").requests(CPU, 2000).requests(MEM, 5_000_000_000L),
                        job("k").requests(CPU, 1000)))
            .expect("j", admitted("ws-1"))
            .expect(
                "k",
                waits(Reason.WaitingForBudget)
                    .message(
                        "waiting for budget: need 1000 octomy.io/cpu-milli, 8000 already admitted or"
                            + " running in namespace studio, budget is 8000.")),
        scenario(
                "a request above the whole budget says so",
                world()
                    .budget("studio", CPU, 8000)
                    .with(node("ws-1").capacity(CPU, 16000))
                    .with(job("huge").requests(CPU, 9000)))
            .expect(
                "huge",
                waits(Reason.WaitingForBudget)
                    .message(
                        "waiting for budget: need 9000 octomy.io/cpu-milli, more than the whole budget"
                            + " of 8000 in namespace studio.")),
        scenario(
                "the group cap is checked before the budget",
                world()
                    .budget("studio", CPU, 1000)
                    .with(node("ws-1").capacity(CPU, 16000))
                    .with(
                        job("sim-1").group("simulator").running("ws-1"),
                        job("sim-2").group("simulator").requests(CPU, 3000)))
            .expect("sim-2", waits(Reason.WaitingForGroup)),
        scenario(
                "the budget is checked before capacity",
                world()
                    .budget("studio", CPU, 1000)
                    .with(node("ws-1").capacity(CPU, 500))
                    .with(job("j").requests(CPU, 3000)))
            .expect("j", waits(Reason.WaitingForBudget)),

        // ---- capacity -------------------------------------------------------------------
        scenario(
                "waiting for capacity names the most free amount and where",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 4000),
                        node("ws-3").mode(Background).capacity(CPU, 4000))
                    .with(
                        job("a1").requests(CPU, 3000).running("ws-1"),
                        job("a3").requests(CPU, 1000).running("ws-3"),
                        job("j").requests(CPU, 3000)))
            .expect(
                "j",
                waits(Reason.WaitingForCapacity)
                    .message(
                        "waiting for capacity: need 3000 octomy.io/cpu-milli; the most free on a ready"
                            + " node is 2000 (ws-3, Background).")),
        scenario(
                "one pass never overcommits a node",
                world()
                    .with(node("ws-1").capacity(CPU, 4000))
                    .with(
                        job("j1").requests(CPU, 2000),
                        job("j2").requests(CPU, 2000),
                        job("j3").requests(CPU, 2000)))
            .expect("j1", admitted("ws-1"))
            .expect("j2", admitted("ws-1"))
            .expect(
                "j3",
                waits(Reason.WaitingForCapacity)
                    .message(
                        "waiting for capacity: need 2000 octomy.io/cpu-milli; the most free on a ready"
                            + " node is 0 (ws-1, Drone).")),
        scenario(
                "several resources free on different nodes but not together",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 4000).capacity(SU2, 8),
                        node("ws-2").capacity(CPU, 4000).capacity(SU2, 8))
                    .with(
                        job("x").requests(SU2, 8).running("ws-1"),
                        job("y").requests(CPU, 4000).running("ws-2"),
                        job("j").requests(CPU, 2000).requests(SU2, 4)))
            .expect(
                "j",
                waits(Reason.WaitingForCapacity)
                    .message(
                        "waiting for capacity: need 4 example.com/su2-processes and 2000"
                            + " octomy.io/cpu-milli on one node; the most free on a ready node is"
                            + " 8 example.com/su2-processes (ws-2, Drone) and 4000 octomy.io/cpu-milli"
                            + " (ws-1, Drone), but no ready node has all of it free at once.")),
        scenario(
                "no node fits: larger than every offer in the current mode",
                world()
                    .with(node("ws-1").mode(Interactive).capacity(CPU, 8000))
                    .with(job("j").requests(CPU, 6000)))
            .expect(
                "j",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: need 6000 octomy.io/cpu-milli; the largest offer of a ready node"
                            + " in its current mode is 4000 (ws-1, Interactive).")),
        scenario(
                "Interactive offers no GPU",
                world()
                    .with(node("ws-1").mode(Interactive).capacity(GPU, 2))
                    .with(job("j").requests(GPU, 1)))
            .expect(
                "j",
                waits(Reason.NoNodeFits)
                    .mentions("nothing of octomy.io/gpu (no ready node offers it)")),
        scenario(
                "a resource a node lacks has offer 0",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("j").requests(CPU, 1000).requests(SU2, 4)))
            .expect(
                "j",
                waits(Reason.NoNodeFits)
                    .mentions(
                        "8000 octomy.io/cpu-milli (ws-1, Drone)",
                        "nothing of example.com/su2-processes (no ready node offers it)")),
        scenario(
                "no node fits when no node is ready (stale heartbeat)",
                world()
                    .with(node("ws-1").capacity(CPU, 8000).heartbeatSecondsAgo(120))
                    .with(job("j").requests(CPU, 1000)))
            .expect(
                "j",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: no node is ready (1 known; a node is ready when its agent reports"
                            + " Ready and its last heartbeat is less than 1m old).")),
        scenario(
                "a heartbeat exactly as old as the timeout is stale",
                world()
                    .with(node("ws-1").capacity(CPU, 8000).heartbeatSecondsAgo(60))
                    .with(job("j").requests(CPU, 1000)))
            .expect("j", waits(Reason.NoNodeFits).mentions("no node is ready")),
        scenario(
                "stale and not-ready nodes are passed over",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 8000).heartbeatSecondsAgo(300),
                        node("ws-2").capacity(CPU, 8000).notReady(),
                        node("ws-3").capacity(CPU, 2000).heartbeatSecondsAgo(59))
                    .with(job("j").requests(CPU, 1000), job("k").requests(CPU, 4000)))
            .expect("j", admitted("ws-3"))
            .expect("k", waits(Reason.NoNodeFits)),
        scenario(
                "an Off node accepts nothing, not even a BestEffort job",
                world().with(node("ws-1").mode(Off).capacity(CPU, 8000)).with(job("be")))
            .expect(
                "be",
                waits(Reason.NoNodeFits)
                    .message("no node fits: every ready node is in mode Off for this job.")),
        scenario(
                "a BestEffort job fits any ready node, even one with no capacity listed",
                world().with(node("ws-1")).with(job("be")))
            .expect("be", admitted("ws-1").priority(0)),
        scenario(
                "BestEffort jobs go to the node with the fewest jobs, ties by name",
                world()
                    .with(node("ws-1"), node("ws-2"))
                    .with(job("r1").running("ws-1"), job("be1").queuedMinutesAgo(1), job("be2")))
            .expect("be1", admitted("ws-2"))
            .expect("be2", admitted("ws-1")),
        scenario(
                "a request of 0 constrains nothing",
                world()
                    .with(node("ws-1").capacity(CPU, 1000))
                    .with(
                        job("big").requests(CPU, 2000).running("ws-1"),
                        job("zero").requests(CPU, 0)))
            .expect("zero", admitted("ws-1")),
        scenario(
                "a mode change leaves allocation above the new offer: nothing more of it fits",
                world()
                    .with(
                        node("ws-1")
                            .mode(Interactive)
                            .capacity(CPU, 8000)
                            .capacity(MEM, 16_000_000_000L))
                    .with(
                        job("old").requests(CPU, 6000).running("ws-1"),
                        job("c1").requests(CPU, 1000),
                        job("m1").requests(MEM, 1_000_000_000L)))
            .expect(
                "c1",
                waits(Reason.WaitingForCapacity)
                    .message(
                        "waiting for capacity: need 1000 octomy.io/cpu-milli; the most free on a ready"
                            + " node is 0 (ws-1, Interactive; 6000 allocated is above its offer of"
                            + " 4000)."))
            .expect("m1", admitted("ws-1"))
            .then(r -> assertThat(r.decision(key("old"))).isEmpty()),
        scenario(
                "own vs others' offers: ownMode for the node's own work",
                world()
                    .with(
                        node("ws-7").mode(Interactive).ownMode(NodeMode.Drone).capacity(CPU, 8000))
                    .with(
                        job("mine").origin("ws-7").requests(CPU, 6000),
                        job("theirs").requests(CPU, 6000)))
            .expect("mine", admitted("ws-7"))
            .expect(
                "theirs",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: need 6000 octomy.io/cpu-milli; the largest offer of a ready node"
                            + " in its current mode is 4000 (ws-7, Interactive).")),
        scenario(
                "no node fits: one shape, worded for its own origin and for others",
                world()
                    .with(
                        node("ws-7")
                            .mode(Interactive)
                            .ownMode(NodeMode.Background)
                            .capacity(CPU, 8000))
                    .with(
                        job("theirs-1").requests(CPU, 7000),
                        job("mine").origin("ws-7").requests(CPU, 7000),
                        job("theirs-2").requests(CPU, 7000)))
            .expect(
                "mine",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: need 7000 octomy.io/cpu-milli; the largest offer of a ready node"
                            + " in its current mode is 6000 (ws-7, Background)."))
            .expect(
                "theirs-1",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: need 7000 octomy.io/cpu-milli; the largest offer of a ready node"
                            + " in its current mode is 4000 (ws-7, Interactive)."))
            .expect(
                "theirs-2",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: need 7000 octomy.io/cpu-milli; the largest offer of a ready node"
                            + " in its current mode is 4000 (ws-7, Interactive).")),
        scenario(
                "a workstation lending nothing still runs its own work",
                world()
                    .with(node("ws-7").mode(Off).ownMode(NodeMode.Drone).capacity(CPU, 8000))
                    .with(
                        job("mine").origin("ws-7").requests(CPU, 2000),
                        job("theirs").requests(CPU, 2000)))
            .expect("mine", admitted("ws-7"))
            .expect(
                "theirs",
                waits(Reason.NoNodeFits)
                    .message("no node fits: every ready node is in mode Off for this job.")),
        scenario(
                "a job's own origin node first when it fits there",
                world()
                    .with(node("ws-1").capacity(CPU, 2000), node("ws-2").capacity(CPU, 8000))
                    .with(job("mine").origin("ws-2").requests(CPU, 2000)))
            .expect("mine", admitted("ws-2")),
        scenario(
                "an origin node that cannot hold the job falls back to the best fit",
                world()
                    .with(node("ws-1").capacity(CPU, 8000), node("ws-2").capacity(CPU, 1000))
                    .with(job("mine").origin("ws-2").requests(CPU, 2000)))
            .expect("mine", admitted("ws-1")),
        scenario(
                "best fit: the least leftover, ties by node name",
                world()
                    .with(
                        node("ws-c").capacity(CPU, 4000),
                        node("ws-a").capacity(CPU, 8000),
                        node("ws-b").capacity(CPU, 4000))
                    .with(job("j").requests(CPU, 3000)))
            .expect("j", admitted("ws-b")),
        scenario(
                "best fit is on the job's dominant resource",
                world()
                    .with(
                        node("ws-a").capacity(CPU, 8000).capacity(MEM, 64_000_000_000L),
                        node("ws-b").capacity(CPU, 16000).capacity(MEM, 8_000_000_000L))
                    .with(job("j").requests(CPU, 1000).requests(MEM, 8_000_000_000L)))
            .expect("j", admitted("ws-b")),
        scenario(
                "huge quantities neither overflow nor overcommit",
                world()
                    .with(
                        node("ws-1").mode(Interactive).capacity(CPU, Quantities.MAX),
                        node("ws-2").capacity(CPU, Long.MAX_VALUE))
                    .with(
                        // Holders beyond the bound (a server that enforces nothing) still hold.
                        job("r1").requests(CPU, Long.MAX_VALUE).running("ws-2"),
                        job("r2").requests(CPU, Long.MAX_VALUE).running("ws-2"),
                        job("a").requests(CPU, Quantities.MAX / 3).queuedMinutesAgo(1),
                        job("b").requests(CPU, Quantities.MAX / 3)))
            .expect("a", admitted("ws-1"))
            .expect("b", waits(Reason.WaitingForCapacity)),
        scenario(
                "a lock held twice (double-booked before) lists both holders",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("h2").locks("k").running("ws-1"),
                        job("h1").locks("k").running("ws-1"),
                        job("j").locks("k")))
            .expect(
                "j",
                waits(Reason.WaitingForLock)
                    .message("waiting for lock k held by h1, h2.")
                    .on("k", "h1", "k", "h2")),

        // ---- starvation -----------------------------------------------------------------
        scenario(
                "the starving flag is set past starvationAfter",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("s61").requests(CPU, 1000).queuedMinutesAgo(61),
                        job("s60").requests(CPU, 1000).queuedMinutesAgo(60)))
            .expect("s61", admitted("ws-1").starving(true))
            .expect("s60", admitted("ws-1").starving(false)),
        scenario(
                "a starving job holds back lower-priority admissions where it fits soonest",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 16000).capacity(MEM, 16_000_000_000L),
                        node("ws-2").capacity(CPU, 4000))
                    .with(
                        job("h1").requests(CPU, 14000).running("ws-1"),
                        job("h2").requests(CPU, 1000).running("ws-2"),
                        job("big").requests(CPU, 4000).queuedMinutesAgo(120),
                        job("s1").guaranteed(CPU, 1000),
                        job("s2").guaranteed(CPU, 2000),
                        job("s3").guaranteed(CPU, 1500),
                        job("m1").requests(MEM, 1_000_000_000L),
                        job("be")))
            .expect(
                "big",
                waits(Reason.WaitingForCapacity)
                    .starving(true)
                    .priority(400)
                    .mentions("It has waited longer than 1h, so node ws-1 is held back for it."))
            .expect("s1", admitted("ws-2"))
            .expect("s2", admitted("ws-2"))
            .expect(
                "s3",
                waits(Reason.HeldForStarvingJob)
                    .message(
                        "held for starving job studio/big: node ws-1 is kept for it, and this job fits"
                            + " no other node now."))
            .expect("m1", admitted("ws-1"))
            .expect("be", admitted("ws-1"))
            .then(
                r ->
                    assertThat(r.hold())
                        .isEqualTo(
                            new StarvationHold(
                                key("big"), "ws-1", List.of(CPU), Reason.WaitingForCapacity))),
        scenario(
                "a lower-priority job does not take a lock the starving job needs",
                // Taken now, the starving job would wait for the lock instead and its hold would
                // lapse.
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("h1").requests(CPU, 6000).running("ws-1"),
                        job("big").requests(CPU, 4000).locks("k").queuedMinutesAgo(120),
                        job("tiny").locks("k"),
                        job("other").locks("m")))
            .expect("big", waits(Reason.WaitingForCapacity).starving(true))
            .expect(
                "tiny",
                waits(Reason.HeldForStarvingJob)
                    .message(
                        "held for starving job studio/big: it needs lock k too, and comes first."))
            .expect("other", admitted("ws-1")),
        scenario(
                "a lower-priority job does not take the last group slot the starving job needs",
                world()
                    .group("g", 2)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("h1").requests(CPU, 6000).group("g").running("ws-1"),
                        job("big").requests(CPU, 4000).group("g").queuedMinutesAgo(120),
                        job("mate").group("g")))
            .expect("big", waits(Reason.WaitingForCapacity).starving(true))
            .expect(
                "mate",
                waits(Reason.HeldForStarvingJob)
                    .message(
                        "held for starving job studio/big: it needs the last free slot of group g too,"
                            + " and comes first.")),
        scenario(
                "a lower-priority job does not spend the budget the starving job needs",
                world()
                    .budget("studio", CPU, 7000)
                    .with(node("ws-1").capacity(CPU, 4000), node("ws-2").capacity(CPU, 2000))
                    .with(
                        job("h1").requests(CPU, 3000).running("ws-1"),
                        job("big").requests(CPU, 3000).queuedMinutesAgo(120),
                        job("mid").requests(CPU, 1500),
                        job("small").requests(CPU, 1000)))
            .expect("big", waits(Reason.WaitingForCapacity).starving(true))
            .expect(
                "mid",
                waits(Reason.HeldForStarvingJob)
                    .message(
                        "held for starving job studio/big: it needs what is left of the namespace's"
                            + " octomy.io/cpu-milli budget too, and comes first."))
            .expect("small", admitted("ws-2")),
        // ---- nothing starves, whatever it waits on ----------------------------------------------
        scenario(
                "a starving job waiting for one lock keeps its other lock from lower-priority jobs",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("holder").locks("k1").running("ws-1"),
                        job("big").locks("k1", "k2").queuedMinutesAgo(120),
                        job("small").locks("k2")))
            .expect(
                "big",
                waits(Reason.WaitingForLock)
                    .starving(true)
                    .starvation(
                        "lower-priority jobs are held back for it: they may not take its locks k1,"
                            + " k2."))
            .expect(
                "small",
                waits(Reason.HeldForStarvingJob)
                    .message(
                        "held for starving job studio/big: it needs lock k2 too, and comes first."))
            .then(
                r ->
                    assertThat(r.hold())
                        .isEqualTo(
                            new StarvationHold(
                                key("big"), null, List.of(), Reason.WaitingForLock))),
        scenario(
                "a starving job waiting for budget lets it drain: lower-priority jobs take none",
                world()
                    .budget("studio", CPU, 8000)
                    .with(node("ws-1").capacity(CPU, 16000).capacity(MEM, 4000))
                    .with(
                        job("r1").requests(CPU, 6000).running("ws-1"),
                        job("big").requests(CPU, 4000).queuedMinutesAgo(120),
                        job("small").requests(CPU, 1000),
                        job("other-namespace").namespace("lab").requests(CPU, 1000),
                        job("no-budgeted-resource").requests(MEM, 1000)))
            .expect(
                "big",
                waits(Reason.WaitingForBudget)
                    .starving(true)
                    .starvation(
                        "lower-priority jobs are held back for it: they may not take the namespace"
                            + " budget it needs."))
            .expect(
                "small",
                waits(Reason.HeldForStarvingJob)
                    .message(
                        "held for starving job studio/big: it needs what is left of the namespace's"
                            + " octomy.io/cpu-milli budget too, and comes first."))
            .expect("lab/other-namespace", admitted("ws-1"))
            .expect("no-budgeted-resource", admitted("ws-1")),
        scenario(
                "a starving job waiting for a lock keeps the last free slot of its group",
                world()
                    .group("g", 2)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("holder").locks("k").running("ws-1"),
                        job("mate1").group("g").running("ws-1"),
                        job("big").locks("k").group("g").queuedMinutesAgo(120),
                        job("mate2").group("g")))
            .expect(
                "big",
                waits(Reason.WaitingForLock)
                    .starving(true)
                    .starvation(
                        "lower-priority jobs are held back for it: they may not take its lock k or"
                            + " the last free slot of group g."))
            .expect(
                "mate2", waits(Reason.HeldForStarvingJob).mentions("last free slot of group g")),
        scenario(
                "a starving job that waits for a dependency says nothing can be held back for it",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("first").phase(JobPhase.Running),
                        job("then").after("first").queuedMinutesAgo(120),
                        job("small").requests(CPU, 1000)))
            .expect(
                "then",
                waits(Reason.WaitingForDependency)
                    .starving(true)
                    .starvation(
                        "nothing can be held back for it: it waits for a dependency to succeed."))
            .expect("small", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()),
        scenario(
                "a starving job needing more than the whole budget holds nothing back",
                world()
                    .budget("studio", CPU, 1000)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("huge").requests(CPU, 2000).queuedMinutesAgo(120),
                        job("small").requests(CPU, 500)))
            .expect(
                "huge",
                waits(Reason.WaitingForBudget)
                    .starving(true)
                    .starvation(
                        "nothing can be held back for it: it needs more than the whole budget of its"
                            + " namespace."))
            .expect("small", admitted("ws-1")),
        scenario(
                "a starving job waiting for budget that no node could ever hold holds nothing back",
                world()
                    .budget("studio", CPU, 20000)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("r1").requests(CPU, 6000).running("ws-1"),
                        job("huge").requests(CPU, 16000).queuedMinutesAgo(120),
                        job("small").requests(CPU, 1000)))
            .expect(
                "huge",
                waits(Reason.WaitingForBudget)
                    .starving(true)
                    .starvation(
                        "nothing can be held back for it: no ready node could hold it in its"
                            + " current mode, whatever it waits for first."))
            .expect("small", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()),
        scenario(
                "a starving job waiting for a lock that no node could ever hold keeps no lock",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("holder").locks("k").running("ws-1"),
                        job("huge").requests(CPU, 16000).locks("k").queuedMinutesAgo(120),
                        job("other").requests(CPU, 1000).locks("k2")))
            .expect(
                "huge",
                waits(Reason.WaitingForLock)
                    .starving(true)
                    .starvation(
                        "nothing can be held back for it: no ready node could hold it in its"
                            + " current mode, whatever it waits for first."))
            .expect("other", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()),
        scenario(
                "a starving job waiting for a lock that needs more than the whole budget keeps no"
                    + " lock",
                world()
                    .budget("studio", CPU, 4000)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("holder").locks("k").running("ws-1"),
                        job("greedy").requests(CPU, 6000).locks("k", "k2").queuedMinutesAgo(120),
                        job("other").requests(CPU, 1000).locks("k2")))
            .expect(
                "greedy",
                waits(Reason.WaitingForLock)
                    .starving(true)
                    .starvation(
                        "nothing can be held back for it: it needs more than the whole budget of"
                            + " its namespace, whatever it waits for first."))
            .expect("other", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()),
        scenario(
                "a starving job waiting for a lock in a group that may run nothing keeps no lock",
                world()
                    .group("frozen", 0)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("holder").locks("k").running("ws-1"),
                        job("frozen-job")
                            .requests(CPU, 1000)
                            .locks("k", "k2")
                            .group("frozen")
                            .queuedMinutesAgo(120),
                        job("other").requests(CPU, 1000).locks("k2")))
            .expect(
                "frozen-job",
                waits(Reason.WaitingForLock)
                    .starving(true)
                    .starvation(
                        "nothing can be held back for it: its group may run no job at all"
                            + " (maxRunning 0), whatever it waits for first."))
            .expect("other", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()),
        scenario(
                "only the highest-priority starving job holds a node",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("h1").requests(CPU, 6000).running("ws-1"),
                        job("first").requests(CPU, 4000).queuedMinutesAgo(300),
                        job("second").requests(CPU, 1000).queuedMinutesAgo(90)))
            .expect("first", waits(Reason.WaitingForCapacity).starving(true))
            .expect(
                "second",
                waits(Reason.HeldForStarvingJob)
                    .starvation(
                        "lower-priority jobs are held back for starving job studio/first first,"
                            + " which comes before it."))
            .then(r -> assertThat(r.hold().starvingJob()).isEqualTo(key("first"))),
        scenario(
                "a starving job no node could ever hold keeps nothing back",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("huge").requests(CPU, 100_000).queuedMinutesAgo(300),
                        job("small").requests(CPU, 1000)))
            .expect("huge", waits(Reason.NoNodeFits).starving(true))
            .expect("small", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()));
  }

  /**
   * Found by {@code AdmissionPropertiesTest.aPassOverItsOwnOutputAdmitsNothingTwice}: a job that
   * requests nothing took the lock of the starving job, whose hold then lapsed on the next pass,
   * which admitted what the first pass had held back. Now the first pass holds both.
   */
  @Test
  void aStarvingJobsHoldSurvivesThePassAfter() {
    Snapshot world =
        Fixtures.world()
            .with(node("n0").capacity(MEM, 4))
            .with(
                job("j0").locks("k4"),
                job("j1").requests(MEM, 1),
                job("j2").guaranteed(MEM, 1).queuedMinutesAgo(21),
                job("j3").requests(MEM, 4).locks("k4").queuedMinutesAgo(91))
            .snapshot();
    AdmissionResult first = AdmissionPass.decide(world);
    assertThat(first.decision(key("j0")).orElseThrow().reason())
        .isEqualTo(Reason.HeldForStarvingJob);
    assertThat(first.decision(key("j1")).orElseThrow().reason())
        .isEqualTo(Reason.HeldForStarvingJob);
    AdmissionResult second = AdmissionPass.decide(AdmissionPropertiesTest.applied(world, first));
    assertThat(second.admissions()).isEmpty();
  }
}
