package io.octomy.batch.visibility;

import static io.octomy.batch.visibility.VisibilityWorld.CPU;
import static io.octomy.batch.visibility.VisibilityWorld.NOW;
import static io.octomy.batch.visibility.VisibilityWorld.NS;
import static io.octomy.batch.visibility.VisibilityWorld.job;
import static io.octomy.batch.visibility.VisibilityWorld.world;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.vocabulary.NodeMode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The queue in pass order with expected starts and their basis, and "would it fit?". */
class QueueAndFitTest {

  /**
   * ws-1 (8000) is full with a solve job started 5 minutes ago (expected to end in 7); b and c each
   * need all of it and wait in that order; d asks for more than any node offers.
   */
  static VisibilityWorld line() {
    return world()
        .node("ws-1", NodeMode.Drone, CPU, 8000)
        .runs("solve", 10, 10, 12, 14, 20)
        .with(
            job("a").type("solve").running("ws-1", 5).requests(CPU, 8000),
            job("b").type("solve").requests(CPU, 8000).queuedMinutesAgo(2),
            job("c").type("mesh").requests(CPU, 8000).queuedMinutesAgo(1),
            job("d").type("mesh").requests(CPU, 9000));
  }

  @Test
  void theQueueIsInPassOrderWithExpectedStartsAndHowSureTheyAre() {
    List<QueuedJob> queue = line().visibility().queue(NS);
    assertThat(queue).extracting(QueuedJob::name).containsExactly("b", "c", "d");
    assertThat(queue).extracting(QueuedJob::position).containsExactly(1, 2, 3);
    assertThat(queue).extracting(QueuedJob::namespacePosition).containsExactly(1, 2, 3);
    QueuedJob b = queue.get(0);
    assertThat(b.reason()).isEqualTo("WaitingForCapacity");
    assertThat(b.serviceClass()).isEqualTo("Burstable");
    assertThat(b.effectivePriority()).isEqualTo(120);
    assertThat(b.expectedStart()).isEqualTo(Instant.parse("2026-03-01T12:07:00Z"));
    assertThat(b.expectedNode()).isEqualTo("ws-1");
    assertThat(b.expectedIn()).as("the span the basis says").isEqualTo("7m");
    assertThat(b.startBasis())
        .isEqualTo(
            "expected 2026-03-01T12:07:00Z (in 7m) on node ws-1, when a ends (from 5 runs of"
                + " solve); until 2026-03-01T12:58:00Z (1h after it was queued, the starvation"
                + " threshold) a job created later that fits sooner may go first.");
    // c starts when b ends: b's own run is predicted from the median of solve, 12 minutes.
    QueuedJob c = queue.get(1);
    assertThat(c.expectedStart()).isEqualTo(Instant.parse("2026-03-01T12:19:00Z"));
    assertThat(c.startBasis())
        .isEqualTo(
            "expected 2026-03-01T12:19:00Z (in 19m) on node ws-1, when b ends (from 5 runs of"
                + " solve); it rests on 2 predicted run ends in a row; until"
                + " 2026-03-01T12:59:00Z (1h after it was queued, the starvation threshold) a job"
                + " created later that fits sooner may go first.");
    QueuedJob d = queue.get(2);
    assertThat(d.expectedStart()).isNull();
    assertThat(d.expectedIn()).isNull();
    assertThat(d.startBasis())
        .startsWith("not expected to start while nothing else changes: no node fits:");
  }

  @Test
  void eachExpectedStartComesWithTheEndItsTypesRunsPredict() {
    List<QueuedJob> queue = line().visibility().queue(NS);
    // b is a solve (median of 10, 10, 12, 14, 20: 12 minutes) and c a mesh, with no recorded
    // runs: the namespace's median of every run, 12 minutes; d has no expected start, so no end
    assertThat(queue.get(0).expectedEnd()).isEqualTo(Instant.parse("2026-03-01T12:19:00Z"));
    assertThat(queue.get(0).expectedEnd()).isEqualTo(queue.get(1).expectedStart());
    assertThat(queue.get(1).expectedEnd()).isEqualTo(Instant.parse("2026-03-01T12:31:00Z"));
    assertThat(queue.get(2).expectedEnd()).isNull();
  }

  @Test
  void aJobAlreadyStarvingIsNotToldThatLaterJobsMayGoFirst() {
    List<QueuedJob> queue =
        world()
            .node("ws-1", NodeMode.Drone, CPU, 8000)
            .runs("solve", 10, 10, 12, 14, 20)
            .with(
                job("a").type("solve").running("ws-1", 5).requests(CPU, 8000),
                job("b").type("solve").requests(CPU, 8000).queuedMinutesAgo(61))
            .visibility()
            .queue(NS);
    assertThat(queue.get(0).startBasis())
        .isEqualTo(
            "expected 2026-03-01T12:07:00Z (in 7m) on node ws-1, when a ends (from 5 runs of"
                + " solve).");
  }

  @Test
  void theClusterQueueCountsEveryNamespaceAndTheNamespaceQueueItsOwn() {
    VisibilityWorld w = line();
    List<QueuedJob> all = w.visibility().queue(null);
    assertThat(all).hasSize(3);
    assertThat(w.visibility().queue("elsewhere")).isEmpty();
  }

  @Test
  void aJobThatFitsNowIsAdmittedByTheNextPass() {
    VisibilityWorld w = world().node("ws-1", NodeMode.Drone, CPU, 8000);
    FitAnswer fit = w.visibility().fit(candidate("new", 2000), "solve");
    assertThat(fit.admitted()).isTrue();
    assertThat(fit.node()).isEqualTo("ws-1");
    assertThat(fit.phase()).isEqualTo("Admitted");
    assertThat(fit.blockers()).isEmpty();
    assertThat(fit.explanation().job().expectedStart()).isEqualTo(NOW);
    assertThat(fit.explanation().job().startBasis()).isEqualTo("admitted by the next pass.");
  }

  @Test
  void aJobThatWouldWaitSaysWhyAndWhen() {
    FitAnswer fit = line().visibility().fit(candidate("new", 4000), "solve");
    assertThat(fit.admitted()).isFalse();
    assertThat(fit.phase()).isEqualTo("Queued");
    assertThat(fit.explanation().job().position())
        .isEqualTo(4); // after d: same priority, older name
    assertThat(fit.blockers()).extracting(Blocker::reason).containsExactly("WaitingForCapacity");
    assertThat(fit.explanation().job().expectedStart())
        .isEqualTo(Instant.parse("2026-03-01T12:31:00Z"));
  }

  @Test
  void fitDoesNotChangeWhatTheQueueSays() {
    VisibilityWorld w = line();
    Visibility v = w.visibility();
    List<QueuedJob> before = v.queue(NS);
    v.fit(candidate("new", 4000), "solve");
    assertThat(v.queue(NS)).isEqualTo(before);
  }

  @Test
  void aNameAlreadyTakenIsRefusedWithWhatToDoInstead() {
    assertThatThrownBy(() -> line().visibility().fit(candidate("b", 1000), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "batchjob b already exists in namespace studio: ask why it waits instead, or give the"
                + " manifest another name.");
  }

  /**
   * ws-1 is free but has no labels; ssd-1 is full until a (a solve job, started 5 minutes ago)
   * ends, expected in 7 minutes: a job that selects disk=ssd waits for ssd-1 and starts then.
   */
  @Test
  void aFitAndItsExpectedStartSeeTheNodeSelector() {
    VisibilityWorld w =
        world()
            .node("ws-1", NodeMode.Drone, CPU, 8000)
            .node(
                new NodeView(
                    "ssd-1",
                    NodeMode.Drone,
                    null,
                    Map.of(CPU, 8000L),
                    NOW.minusSeconds(5),
                    true,
                    Map.of(),
                    List.of(),
                    Map.of("disk", "ssd")))
            .runs("solve", 10, 10, 12, 14, 20)
            .with(job("a").type("solve").running("ssd-1", 5).requests(CPU, 8000));
    FitAnswer fit =
        w.visibility()
            .fit(job("new").requests(CPU, 2000).nodeSelector("disk", "ssd").view(), "solve");
    assertThat(fit.admitted()).isFalse();
    assertThat(fit.blockers()).extracting(Blocker::reason).containsExactly("WaitingForCapacity");
    assertThat(fit.blockers().get(0).message()).contains("ssd-1").doesNotContain("ws-1");
    assertThat(fit.explanation().job().expectedStart())
        .isEqualTo(Instant.parse("2026-03-01T12:07:00Z"));
    assertThat(fit.explanation().job().expectedNode()).isEqualTo("ssd-1");
  }

  @Test
  void aHeldJobHasOnlyItsReleaseInTheWayAndNoExpectedStart() {
    VisibilityWorld w = world().node("ws-1", NodeMode.Drone, CPU, 8000);
    FitAnswer fit = w.visibility().fit(job("new").requests(CPU, 2000).suspended().view(), null);
    assertThat(fit.admitted()).isFalse();
    assertThat(fit.phase()).isEqualTo("Queued");
    assertThat(fit.blockers()).extracting(Blocker::reason).containsExactly("Held");
    assertThat(fit.explanation().job().expectedStart()).isNull();
    assertThat(fit.explanation().job().startBasis())
        .startsWith("not expected to start while nothing else changes: held: spec.suspend is true");
  }

  /** A gang asks fit for all its replicas at once: two fit ws-1's offer, three never do. */
  @Test
  void aGangFitsOnlyWhole() {
    VisibilityWorld w = world().node("ws-1", NodeMode.Drone, CPU, 8000);
    FitAnswer two = w.visibility().fit(job("pair").requests(CPU, 4000).replicas(2).view(), null);
    assertThat(two.admitted()).isTrue();
    assertThat(two.node()).isEqualTo("ws-1");

    FitAnswer three = w.visibility().fit(job("trio").requests(CPU, 4000).replicas(3).view(), null);
    assertThat(three.admitted()).isFalse();
    assertThat(three.blockers())
        .containsExactly(
            new Blocker(
                "NoNodeFits",
                "no node fits: a gang of 3 needs 4000 octomy.io/cpu-milli for each replica, all at"
                    + " once; the ready nodes' full offers hold 2 of them together, so it can never"
                    + " start whole.",
                "Lower spec.replicas to 2 or the requests (delete and re-create the job), add"
                    + " nodes, or raise a node's mode."));
  }

  static JobView candidate(String name, long cpu) {
    return job(name).requests(CPU, cpu).view();
  }

  @Test
  void aRunningJobsDeadlineBoundsWhenTheJobBehindItStarts() {
    // a has run 5 of its 12 minutes of solve, but its deadline of 8 stops it 3 minutes from now.
    List<QueuedJob> queue =
        world()
            .node("ws-1", NodeMode.Drone, CPU, 8000)
            .runs("solve", 10, 10, 12, 14, 20)
            .with(
                job("a").type("solve").running("ws-1", 5).requests(CPU, 8000).deadlineMinutes(8),
                job("b").type("solve").requests(CPU, 8000))
            .visibility()
            .queue(NS);
    assertThat(queue.get(0).expectedStart()).isEqualTo(Instant.parse("2026-03-01T12:03:00Z"));
    assertThat(queue.get(0).startBasis())
        .startsWith(
            "expected 2026-03-01T12:03:00Z (in 3m) on node ws-1, when a ends (its"
                + " spec.activeDeadlineSeconds stops it after 8m, sooner than its runs say)");
  }
}
