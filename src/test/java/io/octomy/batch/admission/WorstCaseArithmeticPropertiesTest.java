package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import io.octomy.batch.vocabulary.Quantities;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Worst-case inputs at every bound the schema and the policy allow: quantities at 0, 1 and 2^53 - 1
 * (and a few far beyond, as a server that enforces nothing could hand over), dozens of holders of
 * the largest quantity on one node, every priority number at its maximum, waits of decades. No pass
 * may throw, and every admission must fit its node's offer when its node's holdings are summed
 * exactly (BigInteger), so no saturated or wrapped sum can hide an overcommit.
 */
class WorstCaseArithmeticPropertiesTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final List<String> RESOURCES = List.of("a.io/x", "b.io/y");
  static final long MAX = Quantities.MAX;

  record NodeIn(NodeMode mode, long x, long y) {}

  record JobIn(boolean holds, int node, long x, long y, boolean guaranteed, long minutesAgo) {}

  @Provide
  Arbitrary<Snapshot> extremes() {
    Arbitrary<Long> quantity = Arbitraries.of(0L, 1L, MAX / 2, MAX - 1, MAX);
    Arbitrary<Long> wild = Arbitraries.of(0L, 1L, MAX, MAX + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    Arbitrary<NodeIn> node =
        Combinators.combine(
                Arbitraries.of(NodeMode.Drone, NodeMode.Background, NodeMode.Interactive),
                quantity,
                wild)
            .as(NodeIn::new);
    Arbitrary<JobIn> job =
        Combinators.combine(
                Arbitraries.of(false, false, true),
                Arbitraries.integers().between(0, 3),
                quantity,
                wild,
                Arbitraries.of(false, true),
                Arbitraries.of(0L, 1L, 10_000_000L, 500_000_000L))
            .as(JobIn::new);
    return Combinators.combine(
            node.list().ofMinSize(1).ofMaxSize(4),
            job.list().ofMinSize(1).ofMaxSize(60),
            Arbitraries.of(0L, 1L, MAX))
        .as(WorstCaseArithmeticPropertiesTest::world);
  }

  static Snapshot world(List<NodeIn> nodeIns, List<JobIn> jobIns, long budget) {
    List<NodeView> nodes = new ArrayList<>();
    for (int i = 0; i < nodeIns.size(); i++) {
      NodeIn n = nodeIns.get(i);
      nodes.add(
          new NodeView(
              "n" + i,
              n.mode(),
              null,
              Map.of(RESOURCES.get(0), n.x(), RESOURCES.get(1), n.y()),
              NOW.minusSeconds(1),
              true));
    }
    List<JobView> jobs = new ArrayList<>();
    for (int i = 0; i < jobIns.size(); i++) {
      JobIn j = jobIns.get(i);
      Map<String, Long> requests = Map.of(RESOURCES.get(0), j.x(), RESOURCES.get(1), j.y());
      jobs.add(
          new JobView(
              "ns",
              "j" + i,
              1,
              requests,
              j.guaranteed() ? requests : Map.of(),
              List.of(),
              List.of(),
              null,
              null,
              j.holds() ? JobPhase.Running : JobPhase.Queued,
              j.holds() ? "n" + Math.min(j.node(), nodeIns.size() - 1) : null,
              NOW.minus(Duration.ofMinutes(j.minutesAgo())),
              List.of()));
    }
    long p = PriorityPolicy.MAX;
    Policy policy =
        new Policy(
            ModeTable.defaults(),
            new PriorityPolicy(p, p, p, p, p, Duration.ZERO),
            Map.of(),
            Map.of("ns", Map.of(RESOURCES.get(0), budget)),
            Duration.ofSeconds(60));
    return new Snapshot(jobs, nodes, policy, NOW);
  }

  @Property(tries = 400)
  void noPassThrowsAndEveryAdmissionFitsWhenSummedExactly(@ForAll("extremes") Snapshot world) {
    AdmissionResult result = AdmissionPass.decide(world);
    Map<String, NodeView> nodes = new HashMap<>();
    world.nodes().forEach(n -> nodes.put(n.name(), n));
    Map<JobKey, JobView> jobs = new HashMap<>();
    world.jobs().forEach(j -> jobs.put(j.key(), j));
    Map<String, Map<String, BigInteger>> held = new HashMap<>();
    for (JobView j : world.jobs()) {
      if (j.phase().holdsReservation()) {
        add(held, j.node(), j);
      }
    }
    for (Admission a : result.admissions()) {
      JobView job = jobs.get(a.job());
      NodeView node = nodes.get(a.node());
      add(held, a.node(), job);
      for (String r : RESOURCES) {
        long request = job.requests().get(r);
        if (request <= 0) {
          continue; // a request of 0 constrains nothing
        }
        BigInteger offer =
            BigInteger.valueOf(
                world.policy().modes().offer(node.mode(), r, node.capacity().get(r)));
        assertThat(held.get(a.node()).get(r))
            .as("%s on %s after admitting %s", r, a.node(), a.job())
            .isLessThanOrEqualTo(offer);
      }
      assertThat(a.effectivePriority()).isBetween(0L, 2 * PriorityPolicy.MAX);
    }
    assertThat(result.decisions())
        .hasSize((int) world.jobs().stream().filter(j -> j.phase() == JobPhase.Queued).count());
  }

  private static void add(Map<String, Map<String, BigInteger>> held, String node, JobView job) {
    Map<String, BigInteger> onNode = held.computeIfAbsent(node, k -> new HashMap<>());
    job.requests()
        .forEach((r, q) -> onNode.merge(r, BigInteger.valueOf(Math.max(0, q)), BigInteger::add));
  }
}
