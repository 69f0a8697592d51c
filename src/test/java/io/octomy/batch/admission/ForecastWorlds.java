package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.GroupPolicy;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random small worlds for the forecast's and the visibility answers' properties: nodes in every
 * mode, jobs in every phase with locks, groups, dependencies, origins and a namespace budget
 * ({@link #worlds()}), and crowded ones where capacity is the only contention and starvation holds
 * come and go ({@link #crowdedWorlds()}). Some jobs are held, some are gangs of two, and some have
 * a nodeSelector that some nodes' labels match or none does (all derived from the other numbers).
 */
public final class ForecastWorlds {

  private ForecastWorlds() {}

  public static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final List<String> RESOURCES = List.of("a.io/cpu", "b.io/mem");

  record NodeSpec(
      NodeMode mode, NodeMode ownMode, long cpu, long mem, boolean ready, long cpuInUse) {}

  record JobCore(
      String namespace,
      JobPhase phase,
      int node,
      long cpu,
      long mem,
      boolean guaranteed,
      int minutesAgo) {}

  record JobSpec(
      String namespace,
      JobPhase phase,
      int node,
      long cpu,
      long mem,
      boolean guaranteed,
      int minutesAgo,
      List<Integer> after,
      List<String> locks,
      String group,
      int origin) {}

  /**
   * Gangs, from the job's numbers: about one job in six asks for 2 replicas; a holder among them
   * holds one on its node and one on the next (which may not exist).
   */
  private static int replicas(JobSpec s, int i) {
    return Math.floorMod(s.minutesAgo() + 5 * i, 6) == 0 ? 2 : 1;
  }

  public static Arbitrary<Snapshot> worlds() {
    Arbitrary<NodeSpec> node =
        Combinators.combine(
                Arbitraries.of(NodeMode.Drone, NodeMode.Drone, NodeMode.Background, NodeMode.Off),
                Arbitraries.of(NodeMode.class).injectNull(0.7),
                Arbitraries.longs().between(2, 12),
                Arbitraries.longs().between(2, 12),
                Arbitraries.of(true, true, true, false),
                Arbitraries.of(0L, 0L, 0L, 20L))
            .as(NodeSpec::new);
    Arbitrary<JobSpec> job =
        Combinators.combine(
                Arbitraries.of("a", "a", "b"),
                Arbitraries.frequencyOf(
                    Tuple.of(12, Arbitraries.just(JobPhase.Queued)),
                    Tuple.of(5, Arbitraries.of(JobPhase.Admitted, JobPhase.Running)),
                    Tuple.of(2, Arbitraries.of(JobPhase.Succeeded, JobPhase.Failed))),
                Arbitraries.integers().between(0, 4),
                Arbitraries.longs().between(0, 8),
                Arbitraries.longs().between(0, 8),
                Arbitraries.of(false, true),
                Arbitraries.integers().between(0, 200))
            .as(JobCore::new)
            .flatMap(
                core ->
                    Combinators.combine(
                            Arbitraries.frequencyOf(
                                Tuple.of(8, Arbitraries.just(List.<Integer>of())),
                                Tuple.of(
                                    2, Arbitraries.integers().between(0, 24).list().ofMaxSize(2))),
                            Arbitraries.of("k1", "k2", "k3").list().ofMaxSize(1),
                            Arbitraries.of("g1", "g2").injectNull(0.7),
                            Arbitraries.integers().between(-6, 3))
                        .as(
                            (after, locks, group, origin) ->
                                new JobSpec(
                                    core.namespace(),
                                    core.phase(),
                                    core.node(),
                                    core.cpu(),
                                    core.mem(),
                                    core.guaranteed(),
                                    core.minutesAgo(),
                                    after,
                                    locks,
                                    group,
                                    origin)));
    return Combinators.combine(
            node.list().ofMinSize(1).ofMaxSize(4),
            job.list().ofMinSize(1).ofMaxSize(25),
            Arbitraries.longs().between(4, 30).injectNull(0.5),
            Arbitraries.integers().between(0, 2))
        .as(ForecastWorlds::world);
  }

  /**
   * Capacity is the only contention and many jobs are starving or about to be (queued 60 to 200
   * minutes ago, starving after 90): starvation holds are chosen, moved and lifted as jobs end.
   */
  public static Arbitrary<Snapshot> crowdedWorlds() {
    Arbitrary<NodeSpec> node =
        Combinators.combine(
                Arbitraries.of(NodeMode.Drone, NodeMode.Background, NodeMode.Interactive),
                Arbitraries.of(NodeMode.Drone).injectNull(0.7),
                Arbitraries.longs().between(4, 12),
                Arbitraries.longs().between(4, 12),
                Arbitraries.just(true),
                Arbitraries.of(0L, 0L, 20L))
            .as(NodeSpec::new);
    Arbitrary<JobSpec> job =
        Combinators.combine(
                Arbitraries.of(JobPhase.Queued, JobPhase.Queued, JobPhase.Queued, JobPhase.Running),
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, 9),
                Arbitraries.longs().between(0, 9),
                Arbitraries.of(false, true),
                Arbitraries.integers().between(60, 200),
                Arbitraries.integers().between(-6, 2))
            .as(
                (phase, n, cpu, mem, g, ago, origin) ->
                    new JobSpec(
                        "a", phase, n, cpu, mem, g, ago, List.of(), List.of(), null, origin));
    return Combinators.combine(
            node.list().ofMinSize(1).ofMaxSize(3),
            job.list().ofMinSize(4).ofMaxSize(30),
            Arbitraries.just((Long) null),
            Arbitraries.just(1))
        .as(ForecastWorlds::world);
  }

  static Snapshot world(List<NodeSpec> nodeSpecs, List<JobSpec> specs, Long budget, int cap) {
    List<NodeView> nodes = new ArrayList<>();
    for (int i = 0; i < nodeSpecs.size(); i++) {
      NodeSpec n = nodeSpecs.get(i);
      nodes.add(
          new NodeView(
              "n" + i,
              n.mode(),
              n.ownMode(),
              Map.of(RESOURCES.get(0), n.cpu(), RESOURCES.get(1), n.mem()),
              NOW.minusSeconds(5),
              n.ready(),
              Map.of(RESOURCES.get(0), n.cpuInUse()),
              List.of(),
              AdmissionPropertiesTest.labels((int) (n.cpu() + n.mem()))));
    }
    List<JobView> jobs = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      JobSpec s = specs.get(i);
      Map<String, Long> requests = new HashMap<>();
      if (s.cpu() > 0) {
        requests.put(RESOURCES.get(0), s.cpu());
      }
      if (s.mem() > 0) {
        requests.put(RESOURCES.get(1), s.mem());
      }
      jobs.add(
          new JobView(
              s.namespace(),
              "j" + i,
              1,
              requests,
              s.guaranteed() ? requests : Map.of(),
              s.after().stream().map(a -> "j" + a).toList(),
              s.locks(),
              s.group(),
              s.origin() < 0 ? null : "n" + s.origin(),
              s.phase(),
              s.phase().holdsReservation() ? "n" + s.node() : null,
              NOW.minus(Duration.ofMinutes(s.minutesAgo())),
              List.of(),
              s.minutesAgo() % 9 == 4,
              AdmissionPropertiesTest.selector(s.minutesAgo() + i),
              null,
              replicas(s, i),
              s.phase().holdsReservation() && replicas(s, i) > 1
                  ? List.of("n" + s.node(), "n" + (s.node() + 1))
                  : List.of()));
    }
    Policy defaults = Policy.defaults();
    Policy policy =
        new Policy(
            defaults.modes(),
            new PriorityPolicy(200, 100, 0, 10, 300, Duration.ofMinutes(90)),
            Map.of("g1", new GroupPolicy(1), "g2", new GroupPolicy(cap)),
            budget == null ? Map.of() : Map.of("a", Map.of(RESOURCES.get(0), budget)),
            Duration.ofSeconds(60));
    return new Snapshot(jobs, nodes, policy, NOW);
  }
}
