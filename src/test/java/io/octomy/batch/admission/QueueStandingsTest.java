package io.octomy.batch.admission;

import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.queue;
import static io.octomy.batch.admission.Fixtures.world;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.octomy.batch.vocabulary.JobPhase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a pass reports of each BatchQueue for its status. */
class QueueStandingsTest {

  private static QueueStanding of(List<QueueStanding> standings, String name) {
    return standings.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void usageSharesAndCountsIncludeThePassesAdmissionsAndAParentCountsItsSubtree() {
    Snapshot world =
        world()
            .with(
                queue("lab"),
                queue("a").parent("lab").namespaces("na"),
                queue("b").parent("lab").namespaces("nb").weight(3),
                queue("idle").namespaces("ni"))
            .with(node("ws-1").capacity(CPU, 8000))
            .with(
                job("r").namespace("na").requests(CPU, 2000).running("ws-1"),
                job("x").namespace("nb").requests(CPU, 4000),
                job("y").namespace("nb").requests(CPU, 4000))
            .snapshot();

    List<QueueStanding> standings = AdmissionPass.decide(world, PassMemory.empty()).queues();

    assertThat(standings).extracting(QueueStanding::name).containsExactly("a", "b", "idle", "lab");
    QueueStanding b = of(standings, "b");
    assertThat(b.usage()).isEqualTo(Map.of(CPU, 4000L));
    assertThat(b.admitted()).isEqualTo(1);
    assertThat(b.pending()).isEqualTo(1);
    assertThat(b.dominantShare()).isCloseTo(0.5, within(1e-9));
    // lab is the only top-level queue with work (the default queue and idle have none): all of
    // it; b has weight 3 of lab's 4.
    assertThat(b.deservedShare()).isCloseTo(0.75, within(1e-9));
    QueueStanding lab = of(standings, "lab");
    assertThat(lab.usage()).isEqualTo(Map.of(CPU, 6000L));
    assertThat(lab.admitted()).isEqualTo(2);
    assertThat(lab.pending()).isEqualTo(1);
    assertThat(of(standings, "idle").usage()).isEmpty();
    assertThat(of(standings, "idle").problem()).isNull();
  }

  @Test
  void anArrayJobRunningOnNoNodeIsNotCountedAdmittedBesideItsItems() {
    Snapshot world =
        world()
            .with(queue("a").namespaces("na"))
            .with(node("ws-1").capacity(CPU, 8000))
            .with(
                job("sweep").namespace("na").phase(JobPhase.Running),
                job("sweep-0").namespace("na").requests(CPU, 2000).running("ws-1"))
            .snapshot();

    QueueStanding a = of(AdmissionPass.decide(world, PassMemory.empty()).queues(), "a");

    assertThat(a.admitted()).isEqualTo(1);
    assertThat(a.pending()).isZero();
  }

  @Test
  void aConflictAndACycleAreReportedOnTheQueuesConcerned() {
    Snapshot world =
        world()
            .with(
                queue("alpha").namespaces("shared"),
                queue("beta").namespaces("shared", "own"),
                queue("p").parent("q"),
                queue("q").parent("p"))
            .with(node("ws-1").capacity(CPU, 8000))
            .snapshot();

    List<QueueStanding> standings = AdmissionPass.decide(world, PassMemory.empty()).queues();

    assertThat(of(standings, "alpha").problem())
        .isEqualTo(
            "namespace shared is claimed by queue beta too: the jobs there wait until one queue"
                + " lets the namespace go.");
    assertThat(of(standings, "beta").problem()).contains("claimed by queue alpha too");
    assertThat(of(standings, "p").problem())
        .isEqualTo(
            "in a cycle of parents (p -> q -> p): its jobs wait until one spec.parent breaks it.");
  }

  @Test
  void noQueueNoStanding() {
    Snapshot world = world().with(node("ws-1").capacity(CPU, 8000)).snapshot();
    assertThat(AdmissionPass.decide(world, PassMemory.empty()).queues()).isEmpty();
  }
}
