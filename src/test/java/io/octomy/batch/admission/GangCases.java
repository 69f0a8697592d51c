package io.octomy.batch.admission;

import static io.octomy.batch.admission.AdmissionPassTest.key;
import static io.octomy.batch.admission.AdmissionPassTest.scenario;
import static io.octomy.batch.admission.Expected.admitted;
import static io.octomy.batch.admission.Expected.gangAdmitted;
import static io.octomy.batch.admission.Expected.waits;
import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.GPU;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.queue;
import static io.octomy.batch.admission.Fixtures.world;
import static io.octomy.batch.vocabulary.NodeMode.Background;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPassTest.Case;
import java.util.List;
import java.util.stream.Stream;

/**
 * The table cases of gangs ({@code spec.replicas}): placed whole on one node or several, or not at
 * all; part of {@link AdmissionPassTest#cases()}.
 */
final class GangCases {

  private GangCases() {}

  static Stream<Case> cases() {
    return Stream.of(
        scenario(
                "a gang fits only whole: room for 2 of 3 replicas holds nothing, and later jobs"
                    + " that fit still start",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("busy").requests(CPU, 4000).running("ws-1"),
                        job("gang").requests(CPU, 2000).replicas(3).queuedMinutesAgo(10),
                        job("small-1").requests(CPU, 2000),
                        job("small-2").requests(CPU, 2000)))
            .expect(
                "gang",
                waits(Reason.WaitingForCapacity)
                    .message(
                        "waiting for capacity: a gang of 3 needs 2000 octomy.io/cpu-milli for"
                            + " each replica, all at once; the ready nodes have room for 2 now"
                            + " (ws-1: 2), and no replica holds anything until all 3 fit."))
            .expect("small-1", admitted("ws-1"))
            .expect("small-2", admitted("ws-1"))
            .then(r -> assertThat(r.admissions()).hasSize(2)),
        scenario(
                "a gang of 3 on 2 nodes that fit 2 each is admitted on both, and counts 3 times"
                    + " its request",
                world()
                    .with(node("ws-1").capacity(CPU, 4000), node("ws-2").capacity(CPU, 4000))
                    .with(
                        job("gang").requests(CPU, 2000).replicas(3).queuedMinutesAgo(10),
                        job("after-1").requests(CPU, 2000).queuedMinutesAgo(5),
                        job("after-2").requests(CPU, 2000)))
            .expect(
                "gang",
                gangAdmitted("ws-1", "ws-1", "ws-2")
                    .message(
                        "admitted as a gang of 3 replicas: 0 and 1 on node ws-1, 2 on node ws-2."))
            .expect("after-1", admitted("ws-2"))
            .expect("after-2", waits(Reason.WaitingForCapacity))
            .then(
                r ->
                    assertThat(r.admissions().get(0))
                        .isEqualTo(
                            new Admission(
                                key("gang"), "ws-1", 200, false, List.of("ws-1", "ws-1", "ws-2")))),
        scenario(
                "a gang the ready nodes could never hold whole waits NoNodeFits with the numbers,"
                    + " holding nothing",
                world()
                    .with(node("ws-1").capacity(CPU, 4000), node("ws-2").capacity(CPU, 5000))
                    .with(
                        job("wide").requests(CPU, 2000).replicas(5).queuedMinutesAgo(10),
                        job("small").requests(CPU, 2000)))
            .expect(
                "wide",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: a gang of 5 needs 2000 octomy.io/cpu-milli for each"
                            + " replica, all at once; the ready nodes in their current modes"
                            + " offer room for 4 (ws-1: 2, ws-2: 2), so it can never start whole;"
                            + " lower spec.replicas or the requests, or add nodes."))
            .expect("small", admitted("ws-1")),
        scenario(
                "a gang whose one replica fits no node says so with the single job's sentence",
                world()
                    .with(node("ws-1").capacity(CPU, 1000))
                    .with(job("huge").requests(CPU, 2000).replicas(2)))
            .expect(
                "huge",
                waits(Reason.NoNodeFits)
                    .mentions("need 2000 octomy.io/cpu-milli", "Each of its 2 replicas")),
        scenario(
                "a starving gang keeps every node its replicas need, and smaller jobs wait for it",
                world()
                    .with(node("ws-1").capacity(CPU, 4000), node("ws-2").capacity(CPU, 4000))
                    .with(
                        job("r1").requests(CPU, 2000).running("ws-1"),
                        job("r2").requests(CPU, 2000).running("ws-2"),
                        job("gang").requests(CPU, 2000).replicas(3).queuedMinutesAgo(300),
                        job("small").requests(CPU, 2000).queuedMinutesAgo(10),
                        job("gpu").requests(GPU, 1)))
            .expect(
                "gang",
                waits(Reason.WaitingForCapacity)
                    .mentions("room for 2 now", "so nodes ws-1, ws-2 are held back for it")
                    .starvation(
                        "lower-priority jobs are held back for it: nodes ws-1, ws-2 are kept for"
                            + " its replicas where they fit soonest."))
            .expect(
                "small",
                waits(Reason.HeldForStarvingJob)
                    .message(
                        "held for starving job studio/gang: nodes ws-1, ws-2 are kept for it,"
                            + " and this job fits no other nodes now."))
            .expect("gpu", waits(Reason.NoNodeFits))
            .then(
                r -> {
                  assertThat(r.hold().nodes()).containsExactly("ws-1", "ws-2");
                  assertThat(r.admissions()).isEmpty();
                }),
        scenario(
                "a gang with a nodeSelector places every replica on selected nodes, or waits"
                    + " naming the labels",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 4000).label("disk", "ssd"),
                        node("ws-2").capacity(CPU, 8000).label("disk", "hdd"),
                        node("ws-3").capacity(CPU, 2000).label("disk", "ssd"))
                    .with(
                        job("fast").requests(CPU, 2000).replicas(3).nodeSelector("disk", "ssd"),
                        job("too-wide")
                            .requests(CPU, 2000)
                            .replicas(4)
                            .nodeSelector("disk", "ssd")))
            .expect("fast", gangAdmitted("ws-3", "ws-1", "ws-1"))
            .expect(
                "too-wide",
                waits(Reason.NoNodeFits)
                    .mentions(
                        "the ready nodes with the labels disk=ssd (spec.nodeSelector)",
                        "offer room for 3 (ws-1: 2, ws-3: 1)")),
        scenario(
                "a gang in a queue counts its replicas times its request against the max",
                world()
                    .with(queue("team").namespaces("studio").max(CPU, 6000))
                    .with(node("ws-1").capacity(CPU, 16000))
                    .with(
                        job("gang").requests(CPU, 2000).replicas(3).queuedMinutesAgo(10),
                        job("next").requests(CPU, 1000)))
            .expect("gang", gangAdmitted("ws-1", "ws-1", "ws-1"))
            .expect(
                "next",
                waits(Reason.WaitingForQueueMax)
                    .mentions("need 1000 octomy.io/cpu-milli, 6000 already admitted or running")),
        scenario(
                "a gang above its queue's max waits with its whole need",
                world()
                    .with(queue("team").namespaces("studio").max(CPU, 5000))
                    .with(node("ws-1").capacity(CPU, 16000))
                    .with(job("gang").requests(CPU, 2000).replicas(3)))
            .expect(
                "gang",
                waits(Reason.WaitingForQueueMax)
                    .mentions("need 6000 octomy.io/cpu-milli, more than the whole max of 5000")),
        scenario(
                "a gang counts its replicas times its request against the namespace budget",
                world()
                    .budget("studio", CPU, 5000)
                    .with(node("ws-1").capacity(CPU, 16000))
                    .with(job("gang").requests(CPU, 2000).replicas(3)))
            .expect(
                "gang",
                waits(Reason.WaitingForBudget)
                    .mentions("need 6000 octomy.io/cpu-milli, more than the whole budget of 5000")),
        scenario(
                "an admitted gang holds its request on every node its status names",
                world()
                    .with(node("ws-1").capacity(CPU, 4000), node("ws-2").capacity(CPU, 4000))
                    .with(
                        job("gang").requests(CPU, 2000).admittedGang("ws-1", "ws-2", "ws-2"),
                        job("a").requests(CPU, 2000).queuedMinutesAgo(5),
                        job("b").requests(CPU, 2000)))
            .expect("a", admitted("ws-1"))
            .expect("b", waits(Reason.WaitingForCapacity)),
        scenario(
                "a gang on nodes of different modes records the most conservative mode",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 2000),
                        node("ws-2").capacity(CPU, 4000).mode(Background))
                    .with(job("gang").requests(CPU, 2000).replicas(2)))
            .expect(
                "gang",
                gangAdmitted("ws-1", "ws-2")
                    .mode(Background)
                    .message("admitted as a gang of 2 replicas: 0 on node ws-1, 1 on node ws-2.")),
        scenario(
                "a gang that asks for nothing spreads its replicas by load",
                world()
                    .with(node("ws-1").capacity(CPU, 4000), node("ws-2").capacity(CPU, 4000))
                    .with(
                        job("held").requests(CPU, 1).running("ws-1"),
                        job("light").limits(CPU, 1000).replicas(3)))
            .expect("light", gangAdmitted("ws-2", "ws-1", "ws-2")));
  }
}
