package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.controller.FakeCluster.Fault;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The admission loop against an in-memory API server and cache ({@link FakeCluster}): named cases,
 * each a world, a script of passes with the faults a real server can hand back (409, 404, timeouts
 * before and after the write landed, a cache that lags, a restart, lost leadership), and what the
 * server must hold at the end. No sleeps: every pass runs on the test's thread.
 */
class AdmissionLoopTest {

  private static final String CPU = ApiFixtures.CPU;

  /** The loop under test, its cluster and its clock; {@link #restart()} builds a fresh loop. */
  static final class Harness {
    final FakeCluster cluster = new FakeCluster();
    final TestClock clock = TestClock.standing();
    final List<AdmissionLoop.PassReport> reports = new ArrayList<>();
    private FinalizerRelease finalizerRelease = FinalizerRelease.AT_FINISH;
    private Predicate<String> logsServedOn = AdmissionLoop.Settings.NO_NODE;
    AdmissionLoop loop = newLoop();

    AdmissionLoop newLoop() {
      // A pass delay longer than any test: a pass asked for after a conflict never runs behind the
      // test's back; the script runs each pass itself.
      AdmissionLoop.Settings settings =
          new AdmissionLoop.Settings(
              Duration.ofHours(1),
              Duration.ofHours(1),
              Duration.ofSeconds(30),
              2,
              finalizerRelease,
              logsServedOn);
      return new AdmissionLoop(
          cluster,
          cluster,
          Policy.defaults(),
          clock,
          new ControllerMetrics(new SimpleMeterRegistry()),
          settings);
    }

    AdmissionLoop.PassReport pass() {
      AdmissionLoop.PassReport r = loop.runPass();
      reports.add(r);
      return r;
    }

    void restart() {
      loop.close();
      loop = newLoop();
    }

    /**
     * The Events the server got, once the loop has sent all it recorded: they go out on a thread of
     * their own ({@code EventRecorder}), so the loop is closed first, which sends what waits.
     */
    List<String> eventsOnceSent() {
      loop.close();
      return cluster.events();
    }

    /** A fresh loop that serves the job output of the nodes given, as standalone does its own. */
    void serveLogsOn(Predicate<String> nodes) {
      logsServedOn = nodes;
      restart();
    }

    /** A fresh loop that releases a finished job's finalizer as given (before the first pass). */
    void releaseFinalizers(FinalizerRelease release) {
      finalizerRelease = release;
      restart();
    }

    BatchNode readyNode(String name, long cpu, Executor executor) {
      return aNode(name).capacity(CPU, cpu).executor(executor).heartbeat(clock.instant()).build();
    }

    int admissionWritesLanded() {
      return reports.stream().mapToInt(r -> r.writes().admissionsWritten()).sum();
    }

    int conflicts() {
      return reports.stream().mapToInt(AdmissionLoop.PassReport::conflicts).sum();
    }
  }

  /**
   * One case.
   *
   * @param world what the server holds before the first pass
   * @param script the passes and faults
   * @param want each job's end state on the server: {@code Admitted@node}, {@code Queued:Reason},
   *     {@code Failed}, or {@code absent}
   * @param check anything else the case must show
   */
  record Case(
      String name,
      Consumer<Harness> world,
      Consumer<Harness> script,
      Map<String, String> want,
      Consumer<Harness> check) {
    @Override
    public String toString() {
      return name;
    }
  }

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
            "admits to the node that fits, then creates its Pod once the cache shows it",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(2000).build());
            },
            h -> {
              AdmissionLoop.PassReport first = h.pass();
              assertThat(first.admitted()).isEqualTo(1);
              assertThat(first.writes().podsCreated()).isZero();
              assertThat(h.pass().writes().podsCreated()).isEqualTo(1);
              assertThat(h.pass().writes().podsCreated()).isZero();
            },
            Map.of("a", "Admitted@n1"),
            h -> {
              assertThat(h.cluster.podNames()).containsExactly("a");
              assertThat(h.eventsOnceSent()).contains("a: Admitted");
            }),
        new Case(
            "409 on an admission: nothing stays reserved and the next pass admits it",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("a", Fault.CONFLICT);
            },
            h -> {
              AdmissionLoop.PassReport first = h.pass();
              assertThat(first.conflicts()).isEqualTo(1);
              assertThat(first.writes().admissionsWritten()).isZero();
              assertThat(h.pass().writes().admissionsWritten()).isEqualTo(1);
            },
            Map.of("a", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "404: a job deleted under its admission frees the place for the next one",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.add(aJob("b").cpu(3000).build());
              h.cluster.fault("a", Fault.GONE);
            },
            h -> {
              AdmissionLoop.PassReport first = h.pass();
              assertThat(first.writes().gone()).isEqualTo(1);
              h.pass();
            },
            Map.of("a", "absent", "b", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("b@n1")),
        new Case(
            "a timeout before the write reached the server: read back unchanged, decided again",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("a", Fault.TIMEOUT_LOST);
            },
            h -> {
              assertThat(h.pass().writes().failed()).isEqualTo(1);
              h.pass();
            },
            Map.of("a", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "a timeout after the write landed, on a lagging cache: read back, held, nothing rewritten",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(h.readyNode("n2", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("a", Fault.TIMEOUT_LANDED);
              h.cluster.autoSync = false;
              h.cluster.sync();
            },
            h -> {
              assertThat(h.pass().writes().failed()).isEqualTo(1);
              // The cache still shows a Queued; the read-back finds the admission landed, so a is
              // held and not decided or written again.
              AdmissionLoop.PassReport second = h.pass();
              assertThat(second.admitted()).isZero();
              assertThat(second.written() + second.conflicts()).isZero();
              h.cluster.sync();
              assertThat(h.pass().decided()).isZero();
            },
            Map.of("a", "Admitted@n1"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "a 5xx that landed, unanswered read-back, a higher-priority job seen first: no overcommit",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build()); // Burstable: priority 100
              h.cluster.fault("a", Fault.TIMEOUT_LANDED);
              h.cluster.fault("read/a", Fault.TIMEOUT_LOST);
              h.cluster.autoSync = false;
              h.cluster.sync();
            },
            h -> {
              assertThat(h.pass().writes().failed()).isEqualTo(1);
              // g (Guaranteed: priority 200) is created; the cache sees it before a's admission.
              h.cluster.add(aJob("g").cpu(3000).limit(CPU, 3000).build());
              h.cluster.syncAllBut("a");
              AdmissionLoop.PassReport second = h.pass();
              assertThat(second.admitted()).as("a is still held: g must wait").isZero();
              h.cluster.syncAllBut("a");
              assertThat(h.pass().admitted()).as("read back: landed, still held").isZero();
              h.cluster.sync();
              h.pass();
            },
            Map.of("a", "Admitted@n1", "g", "Queued:WaitingForCapacity"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "cache lag: an admission in flight is held, so its place is not booked twice",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.add(aJob("b").cpu(3000).build());
              h.cluster.autoSync = false;
              h.cluster.sync();
            },
            h -> {
              AdmissionLoop.PassReport first = h.pass();
              assertThat(first.admitted()).isEqualTo(1);
              // Neither write is in the cache yet: a stays assumed, b's status is not rewritten.
              AdmissionLoop.PassReport lagging = h.pass();
              assertThat(lagging.admitted()).isZero();
              assertThat(lagging.written()).isZero();
              h.cluster.sync();
              assertThat(h.pass().admitted()).isZero();
            },
            Map.of("a", "Admitted@n1", "b", "Queued:WaitingForCapacity"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "restart: a new loop rebuilds reservations from the statuses and books nothing twice",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass();
              h.restart();
              h.cluster.add(aJob("b").cpu(3000).build());
              assertThat(h.pass().admitted()).isZero();
            },
            Map.of("a", "Admitted@n1", "b", "Queued:WaitingForCapacity"),
            h -> assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1")),
        new Case(
            "leader loss: a replica that does not lead writes nothing until it leads again",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.loop.activate();
              h.loop.deactivate();
              assertThat(h.loop.passIfActive()).isEmpty();
              assertThat(h.cluster.job("a").getStatus()).isNull();
              h.loop.activate();
              assertThat(h.loop.passIfActive()).hasValueSatisfying(r -> h.reports.add(r));
            },
            Map.of("a", "Admitted@n1"),
            h -> {}),
        new Case(
            "a Pod whose create fails is asked for again on the next pass",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
              h.cluster.fault("pod/a", Fault.TIMEOUT_LOST);
            },
            h -> {
              h.pass();
              assertThat(h.pass().writes().podsFailed()).isEqualTo(1);
              assertThat(h.pass().writes().podsCreated()).isEqualTo(1);
            },
            Map.of("a", "Admitted@n1"),
            h -> assertThat(h.cluster.podNames()).containsExactly("a")),
        new Case(
            "a running job whose Pod is gone fails and frees its place",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).build());
            },
            h -> {
              h.pass(); // a admitted
              h.pass(); // its Pod created
              h.cluster.podPhase("a", "Running");
              h.cluster.add(aJob("b").cpu(3000).build());
              h.pass(); // a Running, b waits
              assertThat(state(h.cluster.job("a"))).isEqualTo("Running@n1");
              assertThat(state(h.cluster.job("b"))).isEqualTo("Queued:WaitingForCapacity");
              h.cluster.deletePod("a");
              h.pass(); // a failed: its Pod vanished
              h.pass(); // b admitted
            },
            Map.of("a", "Failed", "b", "Admitted@n1"),
            h -> {
              assertThat(h.cluster.job("a").getStatus().getMessage())
                  .contains("Its Pod was deleted before it finished.");
              assertThat(h.cluster.admissionsApplied()).containsExactly("a@n1", "b@n1");
            }),
        new Case(
            "a finished run's time is folded into its type's profile, once",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(aJob("a").cpu(3000).type("solve").build());
            },
            h -> {
              h.pass(); // a admitted
              h.pass(); // its Pod created
              h.cluster.podPhase("a", "Running"); // started at T0
              h.pass();
              h.clock.advance(Duration.ofMinutes(10));
              h.cluster.podPhase("a", "Succeeded");
              h.pass(); // finished: 600 s from start to end
              h.restart();
              h.pass(); // a new loop sees it finished and folds nothing again
            },
            Map.of("a", "Succeeded"),
            h -> {
              assertThat(h.cluster.profiles().get("default/solve").runTime().samples())
                  .containsExactly(600L);
              assertThat(h.cluster.profiles().get("default/solve").runs()).isEqualTo(1);
            }),
        new Case(
            "a silent node is marked Ready=Unknown once; its agent's report wins a conflict",
            h -> {
              h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
              h.cluster.add(h.readyNode("n2", 4000, Executor.Pod));
              h.cluster.fault("n2", Fault.CONFLICT);
            },
            h -> {
              h.clock.advance(Duration.ofMinutes(5));
              AdmissionLoop.PassReport first = h.pass();
              assertThat(first.nodes().marked()).isEqualTo(1);
              assertThat(first.nodes().refused()).isEqualTo(1);
              AdmissionLoop.PassReport second = h.pass();
              assertThat(second.nodes().marked()).isEqualTo(1); // n2, now on a fresh version
              assertThat(h.pass().nodes().marked()).isZero();
            },
            Map.of(),
            h -> {
              for (String n : List.of("n1", "n2")) {
                Condition ready =
                    Conditions.find(
                        h.cluster.node(n).getStatus().getConditions(), ConditionTypes.READY);
                assertThat(ready.getStatus()).as(n).isEqualTo(ConditionTypes.UNKNOWN);
              }
            }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void loop(Case c) {
    harness = new Harness();
    c.world().accept(harness);
    c.script().accept(harness);
    Map<String, String> got = new LinkedHashMap<>();
    for (String name : c.want().keySet()) {
      got.put(name, state(harness.cluster.job(name)));
    }
    assertThat(got).as(c.name()).containsExactlyInAnyOrderEntriesOf(c.want());
    c.check().accept(harness);
  }

  private static String state(BatchJob j) {
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
}
