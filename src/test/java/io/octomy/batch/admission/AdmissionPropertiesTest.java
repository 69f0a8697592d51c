package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.octomy.batch.vocabulary.GroupPolicy;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Properties over random small worlds: bounds hold after a pass, the pass is deterministic and
 * independent of list order, a pass over its own output admits nothing twice, and every waiting job
 * has a reason and a message. Small resource pools and few lock, group and node names make
 * contention the common case.
 */
class AdmissionPropertiesTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final List<String> RESOURCES = List.of("a.io/cpu", "b.io/mem", "c.io/gpu");

  record NodeSpec(
      NodeMode mode,
      NodeMode ownMode,
      Map<String, Long> capacity,
      int heartbeatAge,
      boolean ready,
      boolean busy) {}

  record JobCore(
      String namespace,
      JobPhase phase,
      int nodeRef,
      Map<String, Long> requests,
      boolean guaranteed,
      int minutesAgo,
      boolean invalid) {}

  record JobLinks(List<Integer> after, List<String> locks, String group, int originRef) {}

  record PolicySpec(Map<String, Long> budget, int cap1, int cap2) {}

  /**
   * BatchQueues over the namespaces a and b, by layout: 0 none; 1 one queue each; 2 both claim b (a
   * conflict); 3 a cycle of parents over a's queue, b's queue outside it; 4 both under a cohort; 5
   * one queue each, the first with {@link #MIN} as its min (and no max). The maxes fall on the
   * first queue and on the cohort (or the second queue).
   */
  record QueueSpec(int layout, Map<String, Long> max1, Map<String, Long> max2) {

    /** A min about the size of a small world's pool, so the first queue often reclaims it. */
    static final Map<String, Long> MIN = Map.of("a.io/cpu", 16L, "b.io/mem", 16L);

    List<QueueView> queues() {
      return switch (layout) {
        case 1 ->
            List.of(
                new QueueView("qa", null, 1, Map.of(), max1, List.of("a")),
                new QueueView("qb", null, 3, Map.of(), max2, List.of("b")));
        case 2 ->
            List.of(
                new QueueView("qa", null, 1, Map.of(), max1, List.of("a", "b")),
                new QueueView("qb", null, 2, Map.of(), max2, List.of("b")));
        case 3 ->
            List.of(
                new QueueView("qa", "qc", 1, Map.of(), max1, List.of("a")),
                new QueueView("qc", "qa", 1, Map.of(), Map.of(), List.of()),
                new QueueView("qb", null, 1, Map.of(), max2, List.of("b")));
        case 4 ->
            List.of(
                new QueueView("cohort", null, 1, Map.of(), max2, List.of()),
                new QueueView("qa", "cohort", 1, Map.of(), max1, List.of("a")),
                new QueueView("qb", "cohort", 2, Map.of(), Map.of(), List.of("b")));
        case 5 ->
            List.of(
                new QueueView("qa", null, 1, MIN, Map.of(), List.of("a")),
                new QueueView("qb", null, 1, Map.of(), max2, List.of("b")));
        default -> List.of();
      };
    }
  }

  static Arbitrary<QueueSpec> queueSpecs() {
    Arbitrary<Map<String, Long>> max =
        Arbitraries.maps(Arbitraries.of(RESOURCES), Arbitraries.longs().between(0, 20))
            .ofMaxSize(2);
    return Combinators.combine(Arbitraries.integers().between(0, 5), max, max).as(QueueSpec::new);
  }

  @Provide
  Arbitrary<Snapshot> worlds() {
    Arbitrary<NodeSpec> node =
        Combinators.combine(
                Arbitraries.of(
                    NodeMode.Drone,
                    NodeMode.Drone,
                    NodeMode.Background,
                    NodeMode.Interactive,
                    NodeMode.Off),
                Arbitraries.of(NodeMode.class).injectNull(0.6),
                Arbitraries.maps(Arbitraries.of(RESOURCES), Arbitraries.longs().between(2, 16))
                    .ofMinSize(2)
                    .ofMaxSize(3),
                Arbitraries.integers().between(0, 75),
                Arbitraries.of(true, true, true, true, false),
                Arbitraries.of(false, false, true))
            .as(NodeSpec::new);
    Arbitrary<JobCore> core =
        Combinators.combine(
                Arbitraries.of("a", "b"),
                Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(12, Arbitraries.just(JobPhase.Queued)),
                    net.jqwik.api.Tuple.of(5, Arbitraries.of(JobPhase.Admitted, JobPhase.Running)),
                    net.jqwik.api.Tuple.of(
                        3,
                        Arbitraries.of(
                            JobPhase.Succeeded,
                            JobPhase.Failed,
                            JobPhase.Skipped,
                            JobPhase.Rejected))),
                Arbitraries.integers().between(0, 6),
                Arbitraries.maps(Arbitraries.of(RESOURCES), Arbitraries.longs().between(0, 9))
                    .ofMaxSize(2)
                    .edgeCases(e -> e.includeOnly(Map.of())),
                Arbitraries.of(false, true),
                Arbitraries.integers().between(0, 200),
                Arbitraries.of(false, false, false, false, false, false, false, false, false, true))
            .as(JobCore::new);
    Arbitrary<JobLinks> links =
        Combinators.combine(
                Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(7, Arbitraries.just(List.<Integer>of())),
                    net.jqwik.api.Tuple.of(
                        3, Arbitraries.integers().between(0, 30).list().ofMinSize(1).ofMaxSize(2))),
                Arbitraries.of("k1", "k2", "k3", "k4", "k5", "k6").list().ofMaxSize(2),
                Arbitraries.of("g1", "g2").injectNull(0.7),
                Arbitraries.integers().between(-3, 5))
            .as(JobLinks::new);
    Arbitrary<PolicySpec> policy =
        Combinators.combine(
                Arbitraries.maps(Arbitraries.of(RESOURCES), Arbitraries.longs().between(0, 20))
                    .ofMaxSize(2),
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(1, 3))
            .as(PolicySpec::new);
    return Combinators.combine(
            node.list().ofMinSize(1).ofMaxSize(5),
            Combinators.combine(core, links).as(JobBuilderInput::new).list().ofMaxSize(30),
            policy,
            queueSpecs())
        .as(AdmissionPropertiesTest::world);
  }

  /**
   * Worlds where capacity is the only contention: one or two resources, few nodes, many jobs, many
   * of them starving. This is where placement, starvation holds and the holds of a queue reclaiming
   * its min are exercised.
   */
  @Provide
  Arbitrary<Snapshot> crowdedWorlds() {
    Arbitrary<NodeSpec> node =
        Combinators.combine(
                Arbitraries.of(NodeMode.Drone, NodeMode.Background, NodeMode.Interactive),
                Arbitraries.of(NodeMode.Drone).injectNull(0.7),
                Arbitraries.maps(
                        Arbitraries.of(RESOURCES.subList(0, 2)), Arbitraries.longs().between(4, 16))
                    .ofSize(2),
                Arbitraries.integers().between(0, 70),
                Arbitraries.of(true, true, true, true, false),
                Arbitraries.just(false))
            .as(NodeSpec::new);
    Arbitrary<JobCore> core =
        Combinators.combine(
                Arbitraries.of("a", "a", "b"),
                Arbitraries.of(JobPhase.Queued, JobPhase.Queued, JobPhase.Running),
                Arbitraries.integers().between(0, 3),
                Arbitraries.maps(
                        Arbitraries.of(RESOURCES.subList(0, 2)), Arbitraries.longs().between(0, 9))
                    .ofMinSize(1)
                    .ofMaxSize(2),
                Arbitraries.of(false, true),
                Arbitraries.integers().between(0, 200),
                Arbitraries.just(false))
            .as(JobCore::new);
    Arbitrary<JobLinks> links =
        Arbitraries.integers()
            .between(-6, 3)
            .map(origin -> new JobLinks(List.of(), List.of(), null, origin));
    return Combinators.combine(
            node.list().ofMinSize(1).ofMaxSize(3),
            Combinators.combine(core, links)
                .as(JobBuilderInput::new)
                .list()
                .ofMinSize(4)
                .ofMaxSize(30),
            Arbitraries.just(new PolicySpec(Map.of(), 1, 1)),
            Arbitraries.oneOf(
                queueSpecs().filter(q -> q.layout() <= 1),
                queueSpecs().filter(q -> q.layout() == 5)))
        .as(AdmissionPropertiesTest::world);
  }

  record JobBuilderInput(JobCore core, JobLinks links) {}

  static Snapshot world(
      List<NodeSpec> nodeSpecs, List<JobBuilderInput> jobSpecs, PolicySpec policySpec) {
    return world(nodeSpecs, jobSpecs, policySpec, new QueueSpec(0, Map.of(), Map.of()));
  }

  static Snapshot world(
      List<NodeSpec> nodeSpecs,
      List<JobBuilderInput> jobSpecs,
      PolicySpec policySpec,
      QueueSpec queueSpec) {
    List<NodeView> nodes = new ArrayList<>();
    for (int i = 0; i < nodeSpecs.size(); i++) {
      NodeSpec n = nodeSpecs.get(i);
      nodes.add(
          new NodeView(
              "n" + i,
              n.mode(),
              n.ownMode(),
              n.capacity(),
              NOW.minusSeconds(n.heartbeatAge()),
              n.ready(),
              n.busy() ? n.capacity() : Map.of(),
              List.of(),
              labels(i + n.heartbeatAge())));
    }
    List<JobView> jobs = new ArrayList<>();
    for (int i = 0; i < jobSpecs.size(); i++) {
      JobCore c = jobSpecs.get(i).core();
      JobLinks l = jobSpecs.get(i).links();
      boolean holds = c.phase().holdsReservation();
      jobs.add(
          new JobView(
              c.namespace(),
              "j" + i,
              1,
              c.requests(),
              c.guaranteed() ? c.requests() : Map.of(),
              l.after().stream().map(a -> "j" + a).toList(),
              l.locks(),
              l.group(),
              l.originRef() < 0 ? null : "n" + l.originRef(),
              c.phase(),
              holds ? "n" + c.nodeRef() : null,
              NOW.minus(Duration.ofMinutes(c.minutesAgo())),
              c.invalid() ? List.of("Resource name cfd-cores has no domain.") : List.of(),
              c.minutesAgo() % 7 == 3,
              selector(c.minutesAgo() + i),
              // some retries back off: a few past their back-off, a few still in it
              c.minutesAgo() % 5 == 1 ? NOW.plusSeconds(c.minutesAgo() % 2 == 0 ? -30 : 30) : null,
              replicas(c, i),
              holds && replicas(c, i) > 1
                  ? List.of("n" + c.nodeRef(), "n" + (c.nodeRef() + 1), "n" + c.nodeRef())
                      .subList(0, replicas(c, i))
                  : List.of()));
    }
    Policy defaults = Policy.defaults();
    Policy policy =
        new Policy(
            defaults.modes(),
            new PriorityPolicy(200, 100, 0, 10, 300, Duration.ofMinutes(90)),
            Map.of(
                "g1", new GroupPolicy(policySpec.cap1()), "g2", new GroupPolicy(policySpec.cap2())),
            Map.of("a", policySpec.budget()),
            Duration.ofSeconds(60));
    return new Snapshot(jobs, nodes, policy, NOW, queueSpec.queues());
  }

  /**
   * Gangs, from the job's numbers: about one job in five asks for 2 or 3 replicas; a holder among
   * them holds them on its node and the next one (which may not exist).
   */
  static int replicas(JobCore c, int i) {
    return Math.floorMod(c.minutesAgo() + 3 * i, 5) == 0 ? 2 + Math.floorMod(i, 2) : 1;
  }

  /** Node labels, from a number: none, disk=ssd, disk=hdd or disk=ssd with zone=z1. */
  static Map<String, String> labels(int n) {
    return switch (Math.floorMod(n, 4)) {
      case 1 -> Map.of("disk", "ssd");
      case 2 -> Map.of("disk", "hdd");
      case 3 -> Map.of("disk", "ssd", "zone", "z1");
      default -> Map.of();
    };
  }

  /**
   * A nodeSelector, from a number: mostly none, else one that some {@link #labels} match, or one no
   * node's labels ever match.
   */
  static Map<String, String> selector(int n) {
    return switch (Math.floorMod(n, 8)) {
      case 1 -> Map.of("disk", "ssd");
      case 2 -> Map.of("disk", "ssd", "zone", "z1");
      case 3 -> Map.of("disk", "hdd");
      case 4 -> Map.of("gpu", "a100");
      default -> Map.of();
    };
  }

  @Property(tries = 1000)
  void noNodeLockGroupOrBudgetIsOverItsBound(@ForAll("worlds") Snapshot world) {
    AdmissionResult result = AdmissionPass.decide(world);
    new Oracle(world).check(result);
    // The generator must produce contention, not just empty worlds: jqwik reports these counts
    // and fails the property when a reason never shows up (HeldForStarvingJob and
    // HeldForQueueMinimum need the crowded worlds below). WaitingForCapacity is about one decision
    // in 200 here (a job that fits an empty node but not what is left of it), so 300 worlds missed
    // it now and then; 1,000 take about a second.
    result.decisions().values().forEach(d -> Statistics.label("reasons").collect(d.reason()));
    Statistics.label("reasons")
        .coverage(
            c -> {
              for (Reason reason : Reason.values()) {
                if (reason.isWait()
                        && reason != Reason.HeldForStarvingJob
                        && reason != Reason.HeldForQueueMinimum
                    || reason == Reason.Admitted
                    || reason == Reason.DependencyFailed
                    || reason == Reason.DependencyCycle
                    || reason == Reason.InvalidSpec) {
                  c.check(reason).count(n -> n > 0);
                }
              }
            });
  }

  @Property(tries = 300)
  void noNodeIsOvercommittedInCrowdedWorlds(@ForAll("crowdedWorlds") Snapshot world) {
    AdmissionResult result = AdmissionPass.decide(world);
    new Oracle(world).check(result);
    new Oracle(applied(world, result)).check(AdmissionPass.decide(applied(world, result)));
    result.decisions().values().forEach(d -> Statistics.label("reasons").collect(d.reason()));
    Statistics.label("reasons")
        .coverage(
            c -> {
              c.check(Reason.Admitted).count(n -> n > 0);
              c.check(Reason.WaitingForCapacity).count(n -> n > 0);
              c.check(Reason.HeldForStarvingJob).count(n -> n > 0);
              c.check(Reason.HeldForQueueMinimum).count(n -> n > 0);
            });
  }

  @Property(tries = 200)
  void sameSnapshotSameDecisionsWhateverTheListOrder(@ForAll("worlds") Snapshot world) {
    assertDeterministic(world);
  }

  @Property(tries = 200)
  void sameCrowdedSnapshotSameDecisionsWhateverTheListOrder(
      @ForAll("crowdedWorlds") Snapshot world) {
    assertDeterministic(world);
  }

  private static void assertDeterministic(Snapshot world) {
    AdmissionResult first = AdmissionPass.decide(world);
    List<JobView> jobs = new ArrayList<>(world.jobs());
    List<NodeView> nodes = new ArrayList<>(world.nodes());
    Random random = new Random(jobs.size() * 31L + nodes.size());
    Collections.shuffle(jobs, random);
    Collections.shuffle(nodes, random);
    List<QueueView> queues = new ArrayList<>(world.queues());
    Collections.shuffle(queues, random);
    AdmissionResult shuffled =
        AdmissionPass.decide(new Snapshot(jobs, nodes, world.policy(), world.now(), queues));
    assertThat(shuffled).isEqualTo(first);
    assertThat(List.copyOf(shuffled.decisions().keySet()))
        .isEqualTo(List.copyOf(first.decisions().keySet()));
    assertThat(AdmissionPass.decide(world)).isEqualTo(first);
  }

  @Property(tries = 200)
  void aPassOverItsOwnOutputAdmitsNothingTwice(@ForAll("worlds") Snapshot world) {
    AdmissionResult first = AdmissionPass.decide(world);
    Snapshot after = applied(world, first);
    AdmissionResult second = AdmissionPass.decide(after);
    new Oracle(after).check(second);
    // The first pass took everything it could: the second admits no job again and no job anew
    // (a job it admits anew is one the first held back for no reason that still stands).
    first.admissions().forEach(a -> assertThat(second.decision(a.job())).isEmpty());
    assertThat(second.admissions())
        .as("admitted by a second pass over the first's output")
        .isEmpty();
  }

  @Property(tries = 200)
  void eachDecisionNamesItsJobsPlaceInTheSnapshot(@ForAll("worlds") Snapshot world) {
    AdmissionResult result = AdmissionPass.decide(world);
    int[] indexes = result.snapshotIndexes(world);
    List<JobKey> named = new ArrayList<>();
    for (int index : indexes) {
      named.add(world.jobs().get(index).key());
    }
    assertThat(named).isEqualTo(List.copyOf(result.decisions().keySet()));
    // A result built from a map (no pass's arrays behind it) finds the same places by key.
    AdmissionResult copied =
        new AdmissionResult(
            new LinkedHashMap<>(result.decisions()), result.admissions(), result.hold());
    assertThat(copied.snapshotIndexes(world)).containsExactly(indexes);
    if (!result.decisions().isEmpty()) {
      Snapshot other =
          new Snapshot(
              world.jobs().subList(1, world.jobs().size()),
              world.nodes(),
              world.policy(),
              world.now());
      assertThatThrownBy(() -> result.snapshotIndexes(other))
          .as("a snapshot other than the one decided over")
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Property(tries = 200)
  void everyWaitingJobHasAReasonAndAMessage(@ForAll("worlds") Snapshot world) {
    AdmissionPass.decide(world)
        .decisions()
        .forEach(
            (key, d) -> {
              if (d.phase() == JobPhase.Queued) {
                assertThat(d).isInstanceOf(Decision.Wait.class);
                assertThat(d.reason().isWait()).as("%s", d.reason()).isTrue();
                assertThat(d.message()).as("%s", key).isNotBlank().endsWith(".");
                Decision.Wait w = (Decision.Wait) d;
                // A group with maxRunning 0 has no holder to name; locks and dependencies always
                // do.
                if (w.reason() == Reason.WaitingForLock
                    || w.reason() == Reason.WaitingForDependency) {
                  assertThat(w.waitingOn()).as("waitingOn of %s", key).isNotEmpty();
                }
              }
            });
  }

  /** The snapshot with every admission of the result written back, as the controller would. */
  static Snapshot applied(Snapshot world, AdmissionResult result) {
    List<JobView> jobs = new ArrayList<>();
    for (JobView job : world.jobs()) {
      Decision d = result.decisions().get(job.key());
      if (d instanceof Decision.Admit admit) {
        jobs.add(job.withNodes(JobPhase.Admitted, admit.nodes()));
      } else if (d != null && d.phase() != JobPhase.Queued) {
        jobs.add(job.withPhase(d.phase(), null));
      } else {
        jobs.add(job);
      }
    }
    return world.withJobs(jobs, world.now());
  }
}
