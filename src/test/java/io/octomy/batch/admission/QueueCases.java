package io.octomy.batch.admission;

import static io.octomy.batch.admission.AdmissionPassTest.scenario;
import static io.octomy.batch.admission.Expected.admitted;
import static io.octomy.batch.admission.Expected.waits;
import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.GPU;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.queue;
import static io.octomy.batch.admission.Fixtures.world;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPassTest.Case;
import java.util.stream.Stream;

/**
 * The table cases of BatchQueues: which queue a job is in, the queue gates (a namespace two queues
 * claim, a cycle of parents, a queue's max) and the fair-share order; part of {@link
 * AdmissionPassTest#cases()}. Priorities are the class base, aging and the fair-share term of
 * {@link FairShare} at the default weight of 1000.
 */
final class QueueCases {

  private QueueCases() {}

  static Stream<Case> cases() {
    return Stream.of(gates(), fairShare(), minimum()).flatMap(c -> c);
  }

  private static Stream<Case> gates() {
    return Stream.of(
        scenario(
                "a namespace two queues claim belongs to neither: its jobs wait, naming both",
                world()
                    .with(queue("beta").namespaces("team-a"), queue("alpha").namespaces("team-a"))
                    .with(queue("gamma").namespaces("team-b"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("j").namespace("team-a").requests(CPU, 1000),
                        job("k").namespace("team-b").requests(CPU, 1000)))
            .expect(
                "team-a/j",
                waits(Reason.QueueConflict)
                    .message(
                        "waiting for its queue: namespace team-a is claimed by queues alpha and"
                            + " beta, so it belongs to none of them; remove it from all but one of"
                            + " them (spec.namespaces or spec.namespaceSelector)."))
            .expect("team-b/k", admitted("ws-1")),
        scenario(
                "a cycle of parents: the jobs of its queues and of the queues below it wait,"
                    + " naming the cycle",
                world()
                    .with(
                        queue("b").parent("a").namespaces("nb"),
                        queue("a").parent("b").namespaces("na"),
                        queue("c").parent("a").namespaces("nc"),
                        queue("d").parent("missing").namespaces("nd"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("x").namespace("nb").requests(CPU, 1000),
                        job("y").namespace("nc").requests(CPU, 1000),
                        job("z").namespace("nd").requests(CPU, 1000)))
            .expect(
                "nb/x",
                waits(Reason.QueueCycle)
                    .message(
                        "waiting for its queue: queue b is in a cycle of parents (a -> b -> a), so"
                            + " none of them holds a job; set spec.parent of one of them to break"
                            + " it."))
            .expect(
                "nc/y",
                waits(Reason.QueueCycle)
                    .mentions("queue c hangs below a cycle of parents (a -> b -> a)"))
            // A parent that names no queue is none (GitOps applies in any order).
            .expect("nd/z", admitted("ws-1")),
        scenario(
                "a queue's max counts its admitted and running jobs, and each admission of the"
                    + " pass: one pass never takes a queue over its max",
                world()
                    .with(queue("team").namespaces("team-a").max(CPU, 8000))
                    .with(node("ws-1").capacity(CPU, 32000))
                    .with(
                        job("r").namespace("team-a").requests(CPU, 4000).running("ws-1"),
                        job("j1").namespace("team-a").requests(CPU, 3000).queuedMinutesAgo(2),
                        job("j2").namespace("team-a").requests(CPU, 3000).queuedMinutesAgo(1),
                        job("other").requests(CPU, 3000)))
            .expect("team-a/j1", admitted("ws-1"))
            .expect(
                "team-a/j2",
                waits(Reason.WaitingForQueueMax)
                    .message(
                        "waiting for queue max: need 3000 octomy.io/cpu-milli, 7000 already"
                            + " admitted or running in queue team, its max is 8000."))
            // A namespace no queue claims is in the default queue, which has no max.
            .expect("other", admitted("ws-1")),
        scenario(
                "a parent's max caps its whole subtree, and a request above a whole max says so",
                world()
                    .with(
                        queue("research").max(CPU, 6000),
                        queue("a").parent("research").namespaces("na"),
                        queue("b").parent("research").namespaces("nb").max(CPU, 2000))
                    .with(node("ws-1").capacity(CPU, 32000))
                    .with(
                        job("r").namespace("na").requests(CPU, 4000).running("ws-1"),
                        job("y").namespace("na").requests(CPU, 3000),
                        job("huge").namespace("nb").requests(CPU, 2500)))
            .expect(
                "na/y",
                waits(Reason.WaitingForQueueMax)
                    .message(
                        "waiting for queue max: need 3000 octomy.io/cpu-milli, 4000 already"
                            + " admitted or running in queue research (above a), its max is"
                            + " 6000."))
            .expect(
                "nb/huge",
                waits(Reason.WaitingForQueueMax)
                    .message(
                        "waiting for queue max: need 2500 octomy.io/cpu-milli, more than the whole"
                            + " max of 2000 of queue b; need 2500 octomy.io/cpu-milli, 4000 already"
                            + " admitted or running in queue research (above b), its max is"
                            + " 6000.")),
        scenario(
                "the queue's max is checked after the namespace budget and before capacity",
                world()
                    .budget("na", CPU, 1000)
                    .with(queue("a").namespaces("na", "nb").max(CPU, 1000))
                    .with(node("ws-1").capacity(CPU, 500))
                    .with(
                        job("j").namespace("na").requests(CPU, 3000),
                        job("k").namespace("nb").requests(CPU, 3000)))
            .expect("na/j", waits(Reason.WaitingForBudget))
            .expect("nb/k", waits(Reason.WaitingForQueueMax)));
  }

  private static Stream<Case> fairShare() {
    return Stream.of(
        scenario(
                "equal weights: a team with nothing running goes before a team holding the pool,"
                    + " whatever the class and wait of its jobs",
                world()
                    .with(queue("a").namespaces("na"), queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("r").namespace("na").requests(CPU, 6000).running("ws-1"),
                        // dominant share 0.75, all of the siblings' usage, deserved 0.5:
                        // 2^-2 x 1000 = 250
                        job("old").namespace("na").guaranteed(CPU, 2000).queuedMinutesAgo(120),
                        job("new").namespace("nb").requests(CPU, 2000)))
            .expect("nb/new", admitted("ws-1").priority(100 + 1000))
            .expect("na/old", waits(Reason.WaitingForCapacity).priority(200 + 300 + 250)),
        scenario(
                "equal weights: the queue holding less of the pool goes first",
                world()
                    .with(queue("a").namespaces("na"), queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("ra").namespace("na").requests(CPU, 2000).running("ws-1"),
                        job("rb").namespace("nb").requests(CPU, 4000).running("ws-1"),
                        // a: 1/3 of the usage over 1/2 deserved, 2^-(2/3) x 1000 = 630
                        job("x").namespace("na").requests(CPU, 2000),
                        // b: 2/3 over 1/2, 2^-(4/3) x 1000 = 397
                        job("y").namespace("nb").requests(CPU, 2000)))
            .expect("na/x", admitted("ws-1").priority(100 + 630))
            .expect("nb/y", waits(Reason.WaitingForCapacity).priority(100 + 397)),
        scenario(
                "weights 1:3: the same holdings, and the heavier queue goes first though it holds"
                    + " twice as much",
                world()
                    .with(queue("a").namespaces("na"), queue("b").namespaces("nb").weight(3))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("ra").namespace("na").requests(CPU, 2000).running("ws-1"),
                        job("rb").namespace("nb").requests(CPU, 4000).running("ws-1"),
                        // a: 1/3 over 1/4, 2^-(4/3) x 1000 = 397
                        job("x").namespace("na").requests(CPU, 2000),
                        // b: 2/3 over 3/4, 2^-(8/9) x 1000 = 540
                        job("y").namespace("nb").requests(CPU, 2000)))
            .expect("nb/y", admitted("ws-1").priority(100 + 540))
            .expect("na/x", waits(Reason.WaitingForCapacity).priority(100 + 397)),
        scenario(
                "a late arrival starts first as soon as room frees, ahead of a backlog that"
                    + " has aged to its ceiling",
                world()
                    .with(queue("a").namespaces("na"), queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("r1").namespace("na").requests(CPU, 4000).running("ws-1"),
                        job("r2").namespace("na").requests(CPU, 2000).running("ws-1"),
                        job("b1").namespace("na").guaranteed(CPU, 2000).queuedMinutesAgo(600),
                        job("b2").namespace("na").guaranteed(CPU, 2000).queuedMinutesAgo(599),
                        job("late").namespace("nb").requests(CPU, 2000)))
            .expect("nb/late", admitted("ws-1"))
            .expect("na/b1", waits(Reason.WaitingForCapacity))
            .expect("na/b2", waits(Reason.WaitingForCapacity)),
        scenario(
                "past usage counts: of two queues holding nothing now, the one that ran the whole"
                    + " pool for the last hour goes second",
                world()
                    .with(
                        // 8000 for 3600 s, over the mean life of 3600 / ln 2 s: 5545 held, a
                        // dominant share of 0.69, all the siblings' usage: 2^-2 x 1000 = 250
                        queue("a").namespaces("na").pastUsage(CPU, 8000L * 3600),
                        queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("x").namespace("na").requests(CPU, 8000).queuedMinutesAgo(1),
                        job("y").namespace("nb").requests(CPU, 8000)))
            .expect("nb/y", admitted("ws-1").priority(100 + 1000))
            .expect("na/x", waits(Reason.WaitingForCapacity).priority(100 + 10 + 250)),
        scenario(
                "a three-level tree: shares are compared level by level, so the cohort below its"
                    + " share goes first, and within a cohort the child below its share",
                world()
                    .with(
                        queue("lab"),
                        queue("lab-a").parent("lab").namespaces("la"),
                        queue("lab-b").parent("lab").namespaces("lb"),
                        queue("ops").namespaces("ops"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("r").namespace("la").requests(CPU, 4000).running("ws-1"),
                        // lab 2^-2 (all the usage at its level, half deserved), lab-a 2^-2 too
                        job("w").namespace("la").requests(CPU, 4000),
                        // lab 2^-2, lab-b nothing: 1
                        job("y").namespace("lb").requests(CPU, 4000),
                        job("z").namespace("ops").requests(CPU, 4000)))
            .expect("ops/z", admitted("ws-1").priority(100 + 1000))
            .expect("lb/y", waits(Reason.WaitingForCapacity).priority(100 + 250))
            .expect("la/w", waits(Reason.WaitingForCapacity).priority(100 + 63)),
        scenario(
                "a queue whose only job fits nowhere holds nothing back: a lower queue's job is"
                    + " admitted, and the default queue shares too",
                world()
                    .with(queue("a").namespaces("na"), queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("r").namespace("nb").requests(CPU, 2000).running("ws-1"),
                        job("huge").namespace("na").requests(CPU, 99000),
                        job("y").namespace("nb").requests(CPU, 2000),
                        job("d").requests(CPU, 2000)))
            .expect("na/huge", waits(Reason.NoNodeFits).priority(100 + 1000))
            // b holds all the usage of three siblings with work (a, b, the default queue) and
            // deserves a third: 2^-3 x 1000 = 125
            .expect("nb/y", admitted("ws-1").priority(100 + 125))
            .expect("d", admitted("ws-1").priority(100 + 1000))
            .then(r -> assertThat(r.admissions()).hasSize(2)));
  }

  /** A queue's min: capacity that frees up is kept for it, nothing running is touched. */
  private static Stream<Case> minimum() {
    return Stream.of(
        scenario(
                "a queue below its min gets the capacity that frees up: another queue's job of"
                    + " higher priority that would take what its next job needs waits, naming it",
                world()
                    .with(queue("a").namespaces("na").min(CPU, 6000))
                    .with(queue("b").namespaces("nb").weight(3))
                    .with(node("ws-1").capacity(CPU, 8000).capacity(GPU, 2))
                    .with(
                        job("ra").namespace("na").requests(CPU, 2000).running("ws-1"),
                        job("rb").namespace("nb").requests(CPU, 4000).running("ws-1"),
                        // a: 1/3 of the usage over 1/4 deserved, 2^-(4/3) x 1000 = 397
                        job("x").namespace("na").requests(CPU, 4000),
                        // b: 2/3 over 3/4, 2^-(8/9) x 1000 = 540: it comes first, and would fit
                        job("y").namespace("nb").requests(CPU, 2000),
                        // takes nothing x needs: work-conserving
                        job("g").namespace("nb").requests(GPU, 1),
                        job("nothing").namespace("nb")))
            .expect(
                "nb/y",
                waits(Reason.HeldForQueueMinimum)
                    .priority(100 + 540)
                    .message(
                        "held for queue a, which is reclaiming its min: it holds 2000 of its min"
                            + " of 6000 octomy.io/cpu-milli, so node ws-1, where this job would"
                            + " fit, is kept for its job na/x; capacity that frees up there goes to"
                            + " a first."))
            .expect("na/x", waits(Reason.WaitingForCapacity).priority(100 + 397))
            .expect("nb/g", admitted("ws-1"))
            .expect("nb/nothing", admitted("ws-1")),
        scenario(
                "docs/queues.md's example: the lab (weight 3, max 6000) is ahead by fair share,"
                    + " but the team below its min of 4000 gets the 2000 that freed up",
                world()
                    .with(queue("lab").namespaces("lab").weight(3).max(CPU, 6000))
                    .with(queue("team").namespaces("team").min(CPU, 4000))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("l1").namespace("lab").requests(CPU, 2000).running("ws-1"),
                        job("l2").namespace("lab").requests(CPU, 2000).running("ws-1"),
                        job("t1").namespace("team").requests(CPU, 2000).running("ws-1"),
                        // lab: 2/3 of the usage over 3/4 deserved, 2^-(8/9) x 1000 = 540
                        job("l3").namespace("lab").requests(CPU, 2000).queuedMinutesAgo(60),
                        // team: 1/3 over 1/4, 2^-(4/3) x 1000 = 397
                        job("t2").namespace("team").requests(CPU, 2000).queuedMinutesAgo(5)))
            .expect(
                "lab/l3",
                waits(Reason.HeldForQueueMinimum)
                    .priority(100 + 300 + 540)
                    .message(
                        "held for queue team, which is reclaiming its min: it holds 2000 of its min"
                            + " of 4000 octomy.io/cpu-milli, so node ws-1, where this job would fit,"
                            + " is kept for its job team/t2; capacity that frees up there goes to"
                            + " team first."))
            .expect("team/t2", admitted("ws-1").priority(100 + 50 + 397)),
        scenario(
                "a queue below its min whose next job fits now: it goes to the kept node, and a"
                    + " job of another queue first in line takes only what is left beside it",
                world()
                    .with(queue("a").namespaces("na").min(CPU, 6000).pastUsage(CPU, 8000L * 3600))
                    .with(queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("rb").namespace("nb").requests(CPU, 2000).running("ws-1"),
                        job("y").namespace("nb").requests(CPU, 2000).queuedMinutesAgo(30),
                        job("z").namespace("nb").requests(CPU, 2000).queuedMinutesAgo(29),
                        job("x").namespace("na").requests(CPU, 4000)))
            .expect("nb/y", admitted("ws-1"))
            .expect("nb/z", waits(Reason.HeldForQueueMinimum).mentions("kept for its job na/x"))
            .expect("na/x", admitted("ws-1"))
            .then(
                r ->
                    assertThat(r.admissions().stream().map(a -> a.job().name()))
                        .as("the pass order: b's jobs first")
                        .containsExactly("y", "x")),
        scenario(
                "a min larger than the pool counts as the whole pool, and its message says so",
                world()
                    .with(queue("a").namespaces("na").min(CPU, 100000))
                    .with(queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("ra").namespace("na").requests(CPU, 6000).running("ws-1"),
                        job("x").namespace("na").requests(CPU, 4000),
                        job("y").namespace("nb").requests(CPU, 2000)))
            .expect(
                "nb/y",
                waits(Reason.HeldForQueueMinimum)
                    .mentions(
                        "it holds 6000 of its min of 100000 octomy.io/cpu-milli (counted as the"
                            + " 8000 the ready nodes offer now)")),
        scenario(
                "a queue at its min, or whose waiting jobs fit nowhere, holds nothing back",
                world()
                    .with(queue("a").namespaces("na").min(CPU, 2000))
                    .with(queue("c").namespaces("nc").min(CPU, 4000))
                    .with(queue("b").namespaces("nb"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("ra").namespace("na").requests(CPU, 2000).running("ws-1"),
                        job("rb").namespace("nb").requests(CPU, 4000).running("ws-1"),
                        job("x").namespace("na").requests(CPU, 4000),
                        job("huge").namespace("nc").requests(CPU, 99000),
                        job("y").namespace("nb").requests(CPU, 2000)))
            .expect("nc/huge", waits(Reason.NoNodeFits))
            .expect("na/x", waits(Reason.WaitingForCapacity))
            .expect("nb/y", admitted("ws-1")),
        scenario(
                "a cohort's min counts its subtree: a job of a queue outside it is held for the"
                    + " cohort's next job, a smaller job of its own subtree takes the room",
                world()
                    .with(
                        // what lab ran puts its jobs after ops's in the pass
                        queue("lab").min(CPU, 6000).pastUsage(CPU, 3 * 8000L * 3600),
                        queue("la").parent("lab").namespaces("la"),
                        queue("lb").parent("lab").namespaces("lb"),
                        queue("ops").namespaces("ops").weight(4))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("r").namespace("ops").requests(CPU, 6000).running("ws-1"),
                        job("z").namespace("ops").requests(CPU, 2000).queuedMinutesAgo(30),
                        job("w").namespace("la").requests(CPU, 4000).queuedMinutesAgo(2),
                        job("v").namespace("lb").requests(CPU, 2000).queuedMinutesAgo(1)))
            .expect(
                "ops/z",
                waits(Reason.HeldForQueueMinimum)
                    .mentions("held for queue lab, which is reclaiming its min: it holds 0 of"))
            .expect("la/w", waits(Reason.WaitingForCapacity))
            .expect("lb/v", admitted("ws-1")));
  }
}
