package io.octomy.batch.admission;

import static io.octomy.batch.admission.AdmissionPassTest.scenario;
import static io.octomy.batch.admission.Expected.admitted;
import static io.octomy.batch.admission.Expected.rejected;
import static io.octomy.batch.admission.Expected.skipped;
import static io.octomy.batch.admission.Expected.waits;
import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.world;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPassTest.Case;
import java.util.stream.Stream;

/**
 * The table cases of {@code spec.suspend} (reason Held) and {@code spec.nodeSelector}, part of
 * {@link AdmissionPassTest#cases()}.
 */
final class HoldAndSelectorCases {

  private HoldAndSelectorCases() {}

  static final String HELD_BIG =
      "held: spec.suspend is true, so this job takes no part in admission until it is released;"
          + " release it with kubectl patch bj big -n studio --type=merge -p"
          + " '{\"spec\":{\"suspend\":false}}' and it keeps its place by the time it was queued.";

  static Stream<Case> cases() {
    return Stream.of(
        scenario(
                "a held job counts nothing and holds nothing back: not its node, lock, group or"
                    + " budget, even when it has starved; its dependants wait for it",
                world()
                    .budget("studio", CPU, 8000)
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("big")
                            .guaranteed(CPU, 8000)
                            .locks("subject/ernie")
                            .group("simulator")
                            .suspended()
                            .queuedMinutesAgo(300),
                        job("after-big").requests(CPU, 1).after("big"),
                        job("rival").requests(CPU, 8000).locks("subject/ernie").group("simulator")))
            .expect("big", waits(Reason.Held).message(HELD_BIG).starving(false).priority(500))
            .expect("after-big", waits(Reason.WaitingForDependency))
            .expect("rival", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()),
        scenario(
                "a held job in a dependency cycle is rejected all the same, and a dependant skipped"
                    + " for it names a rejected job",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("a").requests(CPU, 1).after("b").suspended(),
                        job("b").requests(CPU, 1).after("a"),
                        job("c").requests(CPU, 1).after("a")))
            .expect("a", rejected(Reason.DependencyCycle))
            .expect("b", rejected(Reason.DependencyCycle))
            .expect("c", skipped("a")),
        scenario(
                "a released job is decided at its place by its original queuedAt, aged while held",
                world()
                    .with(node("ws-1").capacity(CPU, 2000))
                    .with(
                        job("young").requests(CPU, 2000).queuedMinutesAgo(5),
                        job("released").requests(CPU, 2000).queuedMinutesAgo(30)))
            .expect("released", admitted("ws-1").priority(400))
            .expect("young", waits(Reason.WaitingForCapacity).priority(150)),
        scenario(
                "a nodeSelector no ready node's labels match: NoNodeFits, naming the selector",
                world()
                    .with(
                        node("ws-1").capacity(CPU, 8000).label("disk", "hdd"),
                        node("ws-2").capacity(CPU, 8000).label("disk", "ssd").notReady())
                    .with(
                        job("solve")
                            .requests(CPU, 1000)
                            .nodeSelector("os", "linux")
                            .nodeSelector("disk", "ssd")))
            .expect(
                "solve",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: no ready node has the labels disk=ssd, os=linux that"
                            + " spec.nodeSelector asks for; label a node with kubectl label bn"
                            + " NODE disk=ssd os=linux, or change the selector.")),
        scenario(
                "a nodeSelector that matches only a full node waits for capacity there, though"
                    + " another node has room",
                world()
                    .with(
                        node("ssd-1").capacity(CPU, 8000).label("disk", "ssd"),
                        node("ws-9").capacity(CPU, 16000))
                    .with(
                        job("holder").requests(CPU, 7000).running("ssd-1"),
                        job("solve").requests(CPU, 2000).nodeSelector("disk", "ssd")))
            .expect(
                "solve",
                waits(Reason.WaitingForCapacity)
                    .message(
                        "waiting for capacity: need 2000 octomy.io/cpu-milli; the most free on a"
                            + " ready node with the labels disk=ssd (spec.nodeSelector) is 1000"
                            + " (ssd-1, Drone).")),
        scenario(
                "a nodeSelector's job goes only where the labels match, by best fit among them",
                world()
                    .with(
                        node("a-tight").capacity(CPU, 2000),
                        node("b-roomy").capacity(CPU, 8000).label("disk", "ssd"),
                        node("c-snug").capacity(CPU, 4000).label("disk", "ssd"))
                    .with(job("solve").requests(CPU, 2000).nodeSelector("disk", "ssd")))
            .expect("solve", admitted("c-snug")),
        scenario(
                "a starving job with a nodeSelector is held room for only on a node it selects",
                world()
                    .with(
                        node("hdd-1").capacity(CPU, 8000),
                        node("ssd-1").capacity(CPU, 8000).label("disk", "ssd"))
                    .with(
                        job("on-hdd").requests(CPU, 5000).running("hdd-1"),
                        job("on-ssd").requests(CPU, 6000).running("ssd-1"),
                        job("starved")
                            .requests(CPU, 4000)
                            .nodeSelector("disk", "ssd")
                            .queuedMinutesAgo(300),
                        job("small").requests(CPU, 2000),
                        job("small-ssd").requests(CPU, 2000).nodeSelector("disk", "ssd")))
            .expect("starved", waits(Reason.WaitingForCapacity).starving(true))
            .expect("small", admitted("hdd-1"))
            .expect("small-ssd", waits(Reason.HeldForStarvingJob))
            .then(r -> assertThat(r.hold().node()).isEqualTo("ssd-1")),
        scenario(
                "a job whose nodeSelector matches no ready node keeps nothing back when starving",
                world()
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(
                        job("picky")
                            .requests(CPU, 1000)
                            .nodeSelector("gpu", "a100")
                            .queuedMinutesAgo(300),
                        job("other").requests(CPU, 8000)))
            .expect("picky", waits(Reason.NoNodeFits).starving(true))
            .expect("other", admitted("ws-1"))
            .then(r -> assertThat(r.hold()).isNull()));
  }
}
