package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPropertiesTest.JobBuilderInput;
import io.octomy.batch.admission.AdmissionPropertiesTest.JobCore;
import io.octomy.batch.admission.AdmissionPropertiesTest.JobLinks;
import io.octomy.batch.admission.AdmissionPropertiesTest.NodeSpec;
import io.octomy.batch.admission.AdmissionPropertiesTest.PolicySpec;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import java.math.BigInteger;
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
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Best fit over many nodes: every admission goes to the node the rule names, re-read here without
 * the pass's indexes. Worlds have 30 to 60 nodes with two resources whose free amounts do not go
 * together, so the best-fit walk often passes many nodes that have enough of the dominant resource
 * but not of the other, and meets the nodes where nothing fits any more as the cluster fills.
 */
class PlacementPropertiesTest {

  @Provide
  Arbitrary<Snapshot> manyNodeWorlds() {
    String first = AdmissionPropertiesTest.RESOURCES.get(0);
    String second = AdmissionPropertiesTest.RESOURCES.get(1);
    Arbitrary<NodeSpec> node =
        Combinators.combine(
                Arbitraries.of(NodeMode.Drone, NodeMode.Drone, NodeMode.Background),
                Arbitraries.just((NodeMode) null),
                capacities(first, second),
                Arbitraries.integers().between(0, 50),
                Arbitraries.of(true, true, true, true, true, true, true, true, true, false),
                Arbitraries.just(false))
            .as(NodeSpec::new);
    Arbitrary<JobCore> core =
        Combinators.combine(
                Arbitraries.just("a"),
                Arbitraries.of(JobPhase.Queued, JobPhase.Queued, JobPhase.Queued, JobPhase.Running),
                Arbitraries.integers().between(0, 59),
                requests(first, second),
                Arbitraries.of(false, true),
                Arbitraries.integers().between(0, 200),
                Arbitraries.just(false))
            .as(JobCore::new);
    Arbitrary<JobLinks> noLinks = Arbitraries.just(new JobLinks(List.of(), List.of(), null, -1));
    return Combinators.combine(
            node.list().ofMinSize(30).ofMaxSize(60),
            Combinators.combine(core, noLinks)
                .as(JobBuilderInput::new)
                .list()
                .ofMinSize(60)
                .ofMaxSize(150),
            Arbitraries.just(new PolicySpec(Map.of(), 1, 1)))
        .as(AdmissionPropertiesTest::world);
  }

  /**
   * Most nodes have some of the first resource and almost none of the second; a few have more of
   * the first and plenty of the second. For a job that needs both, the first is the dominant share,
   * and its best-fit walk (least free of the first upwards) passes every node of the first kind
   * before it reaches one of the second: to a fit, or to none once those are full.
   */
  private static Arbitrary<Map<String, Long>> capacities(String first, String second) {
    return Arbitraries.frequencyOf(
        Tuple.of(8, pair(first, 20, 30, second, 1, 3)),
        Tuple.of(2, pair(first, 40, 60, second, 300, 500)));
  }

  /** Mostly both resources (the second no node of the first kind holds), some only the first. */
  private static Arbitrary<Map<String, Long>> requests(String first, String second) {
    return Arbitraries.frequencyOf(
        Tuple.of(8, pair(first, 2, 10, second, 4, 10)),
        Tuple.of(2, Arbitraries.longs().between(1, 10).map(q -> Map.of(first, q))));
  }

  private static Arbitrary<Map<String, Long>> pair(
      String first, long firstLow, long firstHigh, String second, long secondLow, long secondHigh) {
    return Combinators.combine(
            Arbitraries.longs().between(firstLow, firstHigh),
            Arbitraries.longs().between(secondLow, secondHigh))
        .as((a, b) -> Map.of(first, a, second, b));
  }

  @Property(tries = 200)
  void everyAdmissionGoesToTheBestFit(@ForAll("manyNodeWorlds") Snapshot world) {
    AdmissionResult result = AdmissionPass.decide(world);
    new Oracle(world).check(result);
    Oracle rules = new Oracle(world);
    List<NodeView> eligible = new ArrayList<>();
    for (NodeView node : world.nodes()) {
      if (rules.ready(node) && node.mode() != NodeMode.Off) {
        eligible.add(node);
      }
    }
    Map<String, Map<String, Long>> allocated = new HashMap<>();
    for (JobView job : world.jobs()) {
      if (job.phase().holdsReservation()) {
        // A gang holds a replica on each node its view names, the rest on its node.
        for (int i = 0; i < job.replicas(); i++) {
          allocate(
              allocated,
              i < job.replicaNodes().size() ? job.replicaNodes().get(i) : job.node(),
              job);
        }
      }
    }
    Map<JobKey, JobView> jobs = new HashMap<>();
    world.jobs().forEach(j -> jobs.put(j.key(), j));
    StarvationHold hold = result.hold();
    boolean afterProtected = false;
    for (Map.Entry<JobKey, Decision> entry : result.decisions().entrySet()) {
      JobView job = jobs.get(entry.getKey());
      Decision decision = entry.getValue();
      if (decision instanceof Decision.Admit admit) {
        boolean keptFromIt =
            afterProtected
                && hold.node() != null
                && job.requests().keySet().stream().anyMatch(hold.resources()::contains);
        // A gang's replicas, one by one, each by the single job's rule on top of those before.
        for (String replicaNode : admit.nodes()) {
          Walk walk = walk(rules, eligible, allocated, job, keptFromIt ? hold.nodes() : List.of());
          assertThat(replicaNode).as("node of %s", job.name()).isEqualTo(walk.chosen());
          allocate(allocated, replicaNode, job);
          Statistics.label("walk to a fit").collect(walk.passed() > LONG_WALK ? "long" : "short");
        }
      } else if (decision.reason() == Reason.WaitingForCapacity
          || decision.reason() == Reason.NoNodeFits) {
        Walk walk = walk(rules, eligible, allocated, job, List.of());
        Statistics.label("walk to no fit").collect(walk.passed() > LONG_WALK ? "long" : "short");
      }
      if (hold != null && entry.getKey().equals(hold.starvingJob())) {
        afterProtected = true;
      }
    }
    // Both ends of a long walk must be met: a fit found far along, and none found at all.
    Statistics.label("walk to a fit").coverage(c -> c.check("long").count(n -> n > 0));
    Statistics.label("walk to no fit").coverage(c -> c.check("long").count(n -> n > 0));
  }

  /** More nodes than the pass walks before it asks its free-space tree. */
  private static final int LONG_WALK = 16;

  /**
   * The best fit and how many nodes with enough of the dominant resource come before it in the
   * best-fit order (all of them when none fits).
   */
  record Walk(String chosen, int passed) {}

  /**
   * The eligible node (ready, mode not Off, its labels match the job's nodeSelector, not the
   * excluded ones) that holds every request now with the least free amount of the dominant
   * resource, ties to the first name; null when none. The dominant resource is the request that is
   * the largest share of the eligible nodes' total offer, ties to the first name; one nobody offers
   * is an infinite share.
   */
  private static Walk walk(
      Oracle rules,
      List<NodeView> eligible,
      Map<String, Map<String, Long>> allocated,
      JobView job,
      List<String> excluded) {
    List<String> names = job.requests().keySet().stream().sorted().toList();
    String dominant = null;
    BigInteger[] best = null;
    for (String name : names) {
      BigInteger total = BigInteger.ZERO;
      for (NodeView node : eligible) {
        total = total.add(BigInteger.valueOf(rules.offer(node, job, name)));
      }
      BigInteger[] share = {BigInteger.valueOf(job.requests().get(name)), total};
      if (dominant == null || larger(share, best)) {
        dominant = name;
        best = share;
      }
    }
    String chosen = null;
    long chosenFree = 0;
    List<Long> enoughOfDominant = new ArrayList<>();
    for (NodeView node : eligible) {
      // The dominant share counts every eligible node; the fit only those the selector names.
      if (excluded.contains(node.name()) || !Oracle.selects(job, node)) {
        continue;
      }
      Map<String, Long> onNode = allocated.getOrDefault(node.name(), Map.of());
      boolean fits =
          names.stream()
              .allMatch(
                  r ->
                      onNode.getOrDefault(r, 0L) + job.requests().get(r)
                          <= rules.offer(node, job, r));
      long free = rules.offer(node, job, dominant) - onNode.getOrDefault(dominant, 0L);
      if (free >= job.requests().get(dominant)) {
        enoughOfDominant.add(free);
      }
      if (fits
          && (chosen == null
              || free < chosenFree
              || (free == chosenFree && node.name().compareTo(chosen) < 0))) {
        chosen = node.name();
        chosenFree = free;
      }
    }
    long bound = chosenFree;
    int passed =
        chosen == null
            ? enoughOfDominant.size()
            : (int) enoughOfDominant.stream().filter(f -> f < bound).count();
    return new Walk(chosen, passed);
  }

  /** a[0]/a[1] > b[0]/b[1], where a denominator of 0 is an infinite share. */
  private static boolean larger(BigInteger[] a, BigInteger[] b) {
    if (b[1].signum() == 0) {
      return false;
    }
    if (a[1].signum() == 0) {
      return true;
    }
    return a[0].multiply(b[1]).compareTo(b[0].multiply(a[1])) > 0;
  }

  private static void allocate(Map<String, Map<String, Long>> allocated, String node, JobView job) {
    if (node == null) {
      return;
    }
    Map<String, Long> onNode = allocated.computeIfAbsent(node, k -> new HashMap<>());
    job.requests().forEach((r, q) -> onNode.merge(r, Math.max(0, q), Long::sum));
  }
}
