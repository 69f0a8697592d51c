package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.controller.AdmissionLoopTest.Case;
import io.octomy.batch.controller.AdmissionLoopTest.Harness;
import io.octomy.batch.controller.FakeCluster.Fault;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The controller's finalizer ({@link Finalizers#RESERVATION}) against the loop and an in-memory
 * server that keeps a deleted object while it has finalizers: named cases, each a world, a script
 * and the end state. A job deleted with no finalizer of the user's keeps its place until its work
 * has stopped; the finalizer is on the server before any admission; it goes once the job holds
 * nothing.
 */
class ReservationFinalizerLoopTest {

  private Harness harness;

  @AfterEach
  void close() {
    if (harness != null) {
      harness.loop.close();
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "a running process job deleted holds its place until its agent reports it stopped",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            ReservationFinalizerLoopTest::deleteWhileRunningThenStop,
            Map.of("a", "absent", "b", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1", "b@n1")),
        new Case(
            "the finalizer is on the server before the admission is",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(1000).build());
              h.cluster.add(aJob("b").cpu(1000).build());
              h.cluster.onAdmission(
                  (job, all) ->
                      assertThat(job.getMetadata().getFinalizers())
                          .as("admitting %s", job.getMetadata().getName())
                          .contains(Finalizers.RESERVATION));
            },
            Harness::pass,
            Map.of("a", "Admitted@n1", "b", "Admitted@n1"),
            h -> assertThat(finalizers(h, "a")).containsExactly(Finalizers.RESERVATION)),
        new Case(
            "a job that carries the finalizer from its create (standalone's server puts it on) is"
                + " admitted by its status write alone",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(withReservation(aJob("a").cpu(1000).build()));
              // a finalizer write would be refused: the job is admitted only if none is sent
              h.cluster.fault("finalizers/a", Fault.CONFLICT);
            },
            h -> assertThat(h.pass().conflicts()).isZero(),
            Map.of("a", "Admitted@n1"),
            h -> assertThat(finalizers(h, "a")).containsExactly(Finalizers.RESERVATION)),
        new Case(
            "a job that carries the finalizer from its create, deleted while it waits, goes at the"
                + " next pass",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("big").cpu(4000).build());
              h.cluster.add(withReservation(aJob("a").cpu(3000).build()));
            },
            h -> {
              h.pass();
              assertThat(state(h, "a")).isEqualTo("Queued:WaitingForCapacity");
              h.cluster.delete("a");
              assertThat(state(h, "a")).as("kept by the finalizer").isNotEqualTo("absent");
              h.pass();
            },
            Map.of("a", "absent", "big", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("big@n1")),
        new Case(
            "a running Pod job deleted: its Pod is deleted at once, the job goes once it is gone",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass();
              h.pass(); // its Pod
              h.cluster.podPhase("a", "Running");
              h.pass();
              h.cluster.delete("a");
              h.cluster.add(aJob("b").cpu(3000).build());
              h.pass(); // deletes the Pod; b still waits (decided on a's Pod still there)
              assertThat(state(h, "b")).isEqualTo("Queued:WaitingForCapacity");
              h.pass(); // a ends (its Pod is gone)
              h.pass(); // a goes, b is admitted
            },
            Map.of("a", "absent", "b", "Admitted@n1"),
            h -> assertThat(h.cluster.podsDeleted()).containsExactly("a")),
        new Case(
            "a job that finished loses the finalizer and stays for people to read",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass();
              h.cluster.report("n1", run(h, "a", JobPhase.Succeeded));
              h.pass();
              h.pass();
            },
            Map.of("a", "Succeeded"),
            h -> assertThat(finalizers(h, "a")).isEmpty()),
        new Case(
            "released at delete (standalone): a finished job keeps the finalizer, and goes at the"
                + " pass after its delete",
            h -> {
              h.releaseFinalizers(FinalizerRelease.AT_DELETE);
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(withReservation(aJob("a").cpu(3000).build()));
            },
            h -> {
              h.pass();
              h.cluster.report("n1", run(h, "a", JobPhase.Succeeded));
              h.pass();
              h.pass();
              assertThat(state(h, "a")).isEqualTo("Succeeded");
              assertThat(finalizers(h, "a")).as("kept").containsExactly(Finalizers.RESERVATION);
              h.cluster.delete("a");
              assertThat(state(h, "a")).as("kept by the finalizer").isEqualTo("Succeeded");
              h.pass();
            },
            Map.of("a", "absent"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "released at delete (standalone): a running job deleted holds its place until its"
                + " agent reports it stopped, then goes",
            h -> {
              h.releaseFinalizers(FinalizerRelease.AT_DELETE);
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(withReservation(aJob("a").cpu(3000).build()));
            },
            ReservationFinalizerLoopTest::deleteWhileRunningThenStop,
            Map.of("a", "absent", "b", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1", "b@n1")),
        new Case(
            "a job deleted while queued goes at once, even with a finalizer left from an admission"
                + " that did not land",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("a", Fault.CONFLICT); // the status write, after the finalizer
            },
            h -> {
              assertThat(h.pass().conflicts()).isEqualTo(1);
              assertThat(finalizers(h, "a")).containsExactly(Finalizers.RESERVATION);
              h.cluster.delete("a");
              h.pass();
            },
            Map.of("a", "absent"),
            h -> assertThat(h.cluster.admissionsApplied()).isEmpty()),
        new Case(
            "409 on the finalizer: nothing is admitted, and the next pass admits it",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("finalizers/a", Fault.CONFLICT);
            },
            h -> {
              AdmissionLoop.PassReport first = h.pass();
              assertThat(first.conflicts()).isEqualTo(1);
              assertThat(h.cluster.admissionsApplied()).isEmpty();
              h.pass();
            },
            Map.of("a", "Admitted@n1"),
            h -> assertThat(finalizers(h, "a")).containsExactly(Finalizers.RESERVATION)),
        new Case(
            "the finalizer write times out: nothing is held or written, decided again",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("finalizers/a", Fault.TIMEOUT_LANDED);
            },
            h -> {
              assertThat(h.pass().writes().failed()).isEqualTo(1);
              assertThat(h.cluster.admissionsApplied()).isEmpty();
              h.pass();
            },
            Map.of("a", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "the admission after the finalizer times out having landed, on a lagging cache: held"
                + " until read back, no second job in its place",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("a", Fault.TIMEOUT_LANDED);
              h.cluster.autoSync = false;
              h.cluster.sync();
            },
            h -> {
              assertThat(h.pass().writes().failed()).isEqualTo(1);
              h.cluster.add(aJob("b").cpu(3000).build());
              h.cluster.syncAllBut("a"); // b is seen, a's two writes are not
              h.pass();
              h.cluster.sync();
              h.pass();
            },
            Map.of("a", "Admitted@n1", "b", "Queued:WaitingForCapacity"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "a job deleted on a BatchNode that is gone goes after the heartbeat timeout",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass();
              h.cluster.report("n1", run(h, "a", JobPhase.Running));
              h.pass();
              h.cluster.delete("a");
              h.cluster.deleteNode("n1");
              h.pass();
              h.clock.advance(Duration.ofSeconds(59));
              h.pass();
              assertThat(state(h, "a")).isEqualTo("Running@n1");
              h.clock.advance(Duration.ofSeconds(1));
              h.pass(); // NodeDeleted
              h.pass(); // goes
            },
            Map.of("a", "absent"),
            h -> {}),
        new Case(
            "a restarted controller keeps counting a job being deleted until its process stopped",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass();
              h.cluster.report("n1", run(h, "a", JobPhase.Running));
              h.pass();
              h.cluster.delete("a");
              h.restart();
              h.cluster.add(aJob("b").cpu(3000).build());
              h.pass();
              assertThat(state(h, "b")).isEqualTo("Queued:WaitingForCapacity");
              h.restart();
              h.cluster.report("n1", run(h, "a", JobPhase.Failed));
              h.pass();
              h.pass();
            },
            Map.of("a", "absent", "b", "Admitted@n1"),
            h -> {}),
        new Case(
            "a job deleted before its agent started it goes once the agent says it did not",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass();
              h.cluster.delete("a");
              h.pass();
              assertThat(state(h, "a")).as("the agent may be starting it").isEqualTo("Admitted@n1");
              NodeJob refused = run(h, "a", JobPhase.Failed);
              refused.setReason("Deleted");
              refused.setStartedAt(null);
              h.cluster.report("n1", refused);
              h.pass();
              h.pass();
            },
            Map.of("a", "absent"),
            h -> {}),
        new Case(
            "a finished job's release that got no answer is sent again at the next pass",
            ReservationFinalizerLoopTest::aJobOnItsNode,
            h -> {
              runToSuccess(h);
              h.cluster.fault("finalizers/a", Fault.TIMEOUT_LOST);
              h.pass(); // its release is sent and gets no answer
              assertThat(finalizers(h, "a")).containsExactly(Finalizers.RESERVATION);
              h.pass(); // sent again
            },
            Map.of("a", "Succeeded"),
            h -> assertThat(finalizers(h, "a")).isEmpty()),
        new Case(
            "a release that landed is not sent again while the cache still shows the job before it",
            ReservationFinalizerLoopTest::aJobOnItsNode,
            h -> {
              runToSuccess(h);
              h.cluster.autoSync = false;
              h.pass(); // its release lands; the cache does not show it yet
              assertThat(finalizers(h, "a")).isEmpty();
              String landed = h.cluster.job("a").getMetadata().getResourceVersion();
              // a second release would take this fault, which moves the job's version
              h.cluster.fault("finalizers/a", Fault.CONFLICT);
              h.pass();
              assertThat(h.cluster.job("a").getMetadata().getResourceVersion())
                  .as("no second release sent")
                  .isEqualTo(landed);
              h.cluster.autoSync = true;
              h.cluster.sync();
              h.pass();
            },
            Map.of("a", "Succeeded"),
            h -> assertThat(finalizers(h, "a")).isEmpty()),
        new Case(
            "someone else's finalizer stays when ours goes",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass();
              h.cluster.deleteBehindFinalizer("a");
              h.cluster.report("n1", run(h, "a", JobPhase.Failed));
              h.pass();
              h.pass();
            },
            Map.of("a", "Failed"),
            h -> assertThat(finalizers(h, "a")).containsExactly(FakeCluster.FOREIGN_FINALIZER)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void loop(Case c) {
    harness = new Harness();
    c.world().accept(harness);
    c.script().accept(harness);
    Map<String, String> got = new LinkedHashMap<>();
    for (String name : c.want().keySet()) {
      got.put(name, state(harness, name));
    }
    assertThat(got).as(c.name()).containsExactlyInAnyOrderEntriesOf(c.want());
    c.check().accept(harness);
  }

  private static String state(Harness h, String name) {
    BatchJob j = h.cluster.job(name);
    if (j == null) {
      return "absent";
    }
    if (j.getStatus() == null || j.getStatus().getPhase() == null) {
      return "undecided";
    }
    return switch (j.getStatus().getPhase()) {
      case Admitted, Running -> j.getStatus().getPhase() + "@" + j.getStatus().getNode();
      case Queued -> "Queued:" + j.getStatus().getReason();
      default -> j.getStatus().getPhase().name();
    };
  }

  /**
   * Job a (3000 of n1's 4000) runs and is deleted, b (3000) arrives; a keeps its place until its
   * agent reports it stopped, then its finalizer goes and b takes the place.
   */
  private static void deleteWhileRunningThenStop(Harness h) {
    h.pass();
    h.cluster.report("n1", run(h, "a", JobPhase.Running));
    h.pass();
    h.cluster.delete("a");
    h.cluster.add(aJob("b").cpu(3000).build());
    h.pass();
    h.pass();
    assertThat(state(h, "a")).as("still running: kept").isEqualTo("Running@n1");
    assertThat(state(h, "b")).isEqualTo("Queued:WaitingForCapacity");
    h.cluster.report("n1", run(h, "a", JobPhase.Failed));
    h.pass(); // a ended
    h.pass(); // its finalizer goes, and b takes the place
  }

  /** Job a (3000 cpu-milli) and a process node n1 (4000) that can hold it. */
  private static void aJobOnItsNode(Harness h) {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).build());
  }

  /** Job a admitted, reported Succeeded by its agent, and its end recorded. */
  private static void runToSuccess(Harness h) {
    h.pass();
    h.cluster.report("n1", run(h, "a", JobPhase.Succeeded));
    h.pass();
  }

  /** The job as standalone's server stores it: with the controller's finalizer from its create. */
  private static BatchJob withReservation(BatchJob job) {
    job.getMetadata().setFinalizers(new ArrayList<>(List.of(Finalizers.RESERVATION)));
    return job;
  }

  private static List<String> finalizers(Harness h, String job) {
    List<String> f = h.cluster.job(job).getMetadata().getFinalizers();
    return f == null ? List.of() : new ArrayList<>(f);
  }

  /** The agent's entry for a job of this run: started, and ended when the phase is final. */
  private static NodeJob run(Harness h, String job, JobPhase phase) {
    NodeJob j = new NodeJob();
    j.setNamespace("default");
    j.setName(job);
    j.setUid(h.cluster.job(job).getMetadata().getUid());
    j.setPhase(phase);
    j.setStartedAt("2026-01-01T00:00:00Z");
    if (phase.isFinished()) {
      j.setExitCode(phase == JobPhase.Succeeded ? 0 : 143);
      j.setFinishedAt("2026-01-01T00:01:00Z");
    }
    return j;
  }
}
