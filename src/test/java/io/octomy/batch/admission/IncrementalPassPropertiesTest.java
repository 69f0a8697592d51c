package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * A pass given the memory of the pass before decides exactly what a pass without one decides, over
 * random sequences of changes between passes: the last pass's decisions written back (admitted,
 * rejected, skipped), jobs created, edited, copied into a new but equal view, deleted and finished,
 * nodes changed, added and removed, the clock moved on (aging reorders the queue, jobs start to
 * starve), the same views listed in another order (the memory finds a view where the last snapshot
 * listed it, shifted, or by its key), and resource names that appear and disappear (the memory's
 * resource ids no longer hold).
 */
class IncrementalPassPropertiesTest {

  enum Kind {
    WRITE_BACK,
    CREATE,
    EDIT,
    COPY,
    DELETE,
    FINISH,
    NODE_EDIT,
    NODE_ADD,
    NODE_REMOVE,
    CLOCK,
    REORDER,
    NEW_RESOURCE,
    DROP_RESOURCE,
    /** spec.suspend set or cleared on one job, nothing else changed: held, then released. */
    SUSPEND,
    /** One node's labels changed, nothing else. */
    NODE_LABEL
  }

  /** One change: its kind, which job or node it picks, and a seed for the rest of it. */
  record Change(Kind kind, int pick, long seed) {}

  @Provide
  Arbitrary<List<List<Change>>> changeSequences() {
    Arbitrary<Change> change =
        Combinators.combine(
                Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(6, Arbitraries.just(Kind.WRITE_BACK)),
                    net.jqwik.api.Tuple.of(
                        3, Arbitraries.of(Kind.CREATE, Kind.EDIT, Kind.DELETE, Kind.FINISH)),
                    net.jqwik.api.Tuple.of(2, Arbitraries.of(Kind.COPY, Kind.CLOCK, Kind.REORDER)),
                    net.jqwik.api.Tuple.of(2, Arbitraries.of(Kind.SUSPEND, Kind.NODE_LABEL)),
                    net.jqwik.api.Tuple.of(
                        1,
                        Arbitraries.of(
                            Kind.NODE_EDIT,
                            Kind.NODE_ADD,
                            Kind.NODE_REMOVE,
                            Kind.NEW_RESOURCE,
                            Kind.DROP_RESOURCE))),
                Arbitraries.integers().between(0, 1000),
                Arbitraries.longs())
            .as(Change::new);
    return change.list().ofMinSize(1).ofMaxSize(4).list().ofMinSize(2).ofMaxSize(8);
  }

  @Property(tries = 150)
  void aRememberingPassDecidesWhatAFullPassDecides(
      @ForAll("worlds") Snapshot world, @ForAll("changeSequences") List<List<Change>> steps) {
    assertSameAsFullPasses(world, steps);
  }

  @Property(tries = 150)
  void aRememberingPassDecidesWhatAFullPassDecidesInCrowdedWorlds(
      @ForAll("crowdedWorlds") Snapshot world,
      @ForAll("changeSequences") List<List<Change>> steps) {
    assertSameAsFullPasses(world, steps);
  }

  /**
   * The memory numbers every namespace, group and lock it has seen, and starts afresh once they far
   * outnumber what its jobs name: a loop whose jobs each bring new lock and group names neither
   * keeps every name forever nor decides differently before or after.
   */
  @Example
  void aMemoryWhoseNumbersOutnumberItsJobsStartsAfresh() {
    NodeView node =
        new NodeView(
            "n1",
            NodeMode.Drone,
            null,
            Map.of("octomy.io/cpu-milli", 4L),
            AdmissionPropertiesTest.NOW,
            true,
            Map.of());
    JobView holder = job("holder", List.of("shared"), "g0", JobPhase.Running, "n1");
    JobView waiter = job("waiter", List.of("shared"), null, JobPhase.Queued, null);
    RememberedPass remembered = null;
    int afresh = 0;
    for (int i = 0; i < 700; i++) {
      JobView changing =
          job("changing", List.of("k" + i, "shared"), "g" + i, JobPhase.Queued, null);
      JobView other = job("other", List.of("m" + i), "g" + i, JobPhase.Queued, null);
      Snapshot world =
          new Snapshot(
              List.of(holder, waiter, changing, other),
              List.of(node),
              Policy.defaults(),
              AdmissionPropertiesTest.NOW);
      PassMemory before = remembered == null ? PassMemory.empty() : remembered.memory();
      remembered = AdmissionPass.decide(world, before);
      assertSame(remembered.result(), AdmissionPass.decide(world));
      assertThat(remembered.result().decision(waiter.key()).orElseThrow().reason())
          .isEqualTo(Reason.WaitingForLock);
      if (i > 0 && keptReadings(world, before, remembered.memory()) == 0) {
        afresh++;
      }
    }
    // Three new names a turn against 4 jobs: afresh past 4 * 4 + 1024 names, twice in 700 turns.
    assertThat(afresh).isEqualTo(2);
  }

  private static JobView job(
      String name, List<String> locks, String group, JobPhase phase, String node) {
    return new JobView(
        "a",
        name,
        1,
        Map.of("octomy.io/cpu-milli", 1L),
        Map.of(),
        List.of(),
        locks,
        group,
        null,
        phase,
        node,
        AdmissionPropertiesTest.NOW,
        List.of());
  }

  @Provide
  Arbitrary<Snapshot> worlds() {
    return new AdmissionPropertiesTest().worlds();
  }

  @Provide
  Arbitrary<Snapshot> crowdedWorlds() {
    return new AdmissionPropertiesTest().crowdedWorlds();
  }

  private static void assertSameAsFullPasses(Snapshot world, List<List<Change>> steps) {
    RememberedPass remembered = AdmissionPass.decide(world, PassMemory.empty());
    assertSame(remembered.result(), AdmissionPass.decide(world));
    Snapshot current = world;
    for (List<Change> step : steps) {
      for (Change change : step) {
        current = apply(current, change, remembered.result());
        Statistics.label("changes").collect(change.kind());
      }
      PassMemory before = remembered.memory();
      remembered = AdmissionPass.decide(current, before);
      assertSame(remembered.result(), AdmissionPass.decide(current));
      assertDecisionsReadAsAMap(current, remembered.result());
      assertThat(remembered.memory().size()).isEqualTo(current.jobs().size());
      Statistics.label("readings taken from the memory")
          .collect(keptReadings(current, before, remembered.memory()) > 0 ? "some" : "none");
    }
    Statistics.label("changes")
        .coverage(
            c -> {
              for (Kind kind : Kind.values()) {
                c.check(kind).count(n -> n > 0);
              }
            });
    Statistics.label("readings taken from the memory")
        .coverage(
            c -> {
              c.check("some").percentage(p -> p > 50);
              c.check("none").count(n -> n > 0);
            });
  }

  /** The same decisions in the same order, the same admissions and the same hold. */
  private static void assertSame(AdmissionResult remembering, AdmissionResult full) {
    assertThat(remembering).isEqualTo(full);
    assertThat(List.copyOf(remembering.decisions().keySet()))
        .isEqualTo(List.copyOf(full.decisions().keySet()));
  }

  /**
   * The pass's decisions read as any map of them would: a decision for each Queued job of the
   * snapshot and for no other key, equal to a plain copy both ways, with the same hash.
   */
  private static void assertDecisionsReadAsAMap(Snapshot world, AdmissionResult result) {
    Map<JobKey, Decision> decisions = result.decisions();
    Map<JobKey, Decision> copy = new LinkedHashMap<>(decisions);
    assertThat(decisions).isEqualTo(copy);
    assertThat(copy).isEqualTo(decisions);
    assertThat(decisions.hashCode()).isEqualTo(copy.hashCode());
    for (JobView job : world.jobs()) {
      boolean queued = job.phase() == JobPhase.Queued;
      assertThat(decisions.containsKey(job.key())).isEqualTo(queued);
      assertThat(decisions.get(job.key()) != null).isEqualTo(queued);
    }
    assertThat(decisions.get(new JobKey("a", "no-such-job"))).isNull();
    assertThat(decisions.get("a/j1")).isNull();
  }

  /** How many readings of the new memory are the very objects the old one held. */
  private static long keptReadings(Snapshot world, PassMemory before, PassMemory after) {
    return world.jobs().stream()
        .filter(v -> before.readingOf(v) != null && before.readingOf(v) == after.readingOf(v))
        .count();
  }

  private static Snapshot apply(Snapshot world, Change change, AdmissionResult last) {
    Random random = new Random(change.seed());
    List<JobView> jobs = new ArrayList<>(world.jobs());
    List<NodeView> nodes = new ArrayList<>(world.nodes());
    int job = jobs.isEmpty() ? -1 : change.pick() % jobs.size();
    int node = nodes.isEmpty() ? -1 : change.pick() % nodes.size();
    switch (change.kind()) {
      case WRITE_BACK -> {
        return AdmissionPropertiesTest.applied(world, last);
      }
      case CREATE -> jobs.add(newJob(random, freshName("c", jobs), nodes));
      case EDIT -> {
        if (job >= 0) {
          JobView old = jobs.get(job);
          JobView edited = newJob(random, old.name(), nodes);
          jobs.set(job, withNamespace(edited, old.namespace(), old.phase(), old.node()));
        }
      }
      case COPY -> {
        if (job >= 0) {
          JobView old = jobs.get(job);
          jobs.set(job, old.withPhase(old.phase(), old.node()));
        }
      }
      case SUSPEND -> {
        if (job >= 0) {
          JobView j = jobs.get(job);
          jobs.set(job, edited(j, j.requests(), !j.suspend(), j.nodeSelector()));
        }
      }
      case NODE_LABEL -> {
        if (node >= 0) {
          NodeView n = nodes.get(node);
          nodes.set(
              node,
              new NodeView(
                  n.name(),
                  n.mode(),
                  n.ownMode(),
                  n.capacity(),
                  n.heartbeat(),
                  n.ready(),
                  n.usage(),
                  n.strayRuns(),
                  AdmissionPropertiesTest.labels(random.nextInt(4))));
        }
      }
      case DELETE -> {
        if (job >= 0) {
          jobs.remove(job);
        }
      }
      case FINISH -> {
        for (int i = 0; i < jobs.size(); i++) {
          JobView j = jobs.get((i + Math.max(0, job)) % jobs.size());
          if (j.phase().holdsReservation()) {
            jobs.set(
                jobs.indexOf(j),
                j.withPhase(random.nextBoolean() ? JobPhase.Succeeded : JobPhase.Failed, null));
            break;
          }
        }
      }
      case REORDER -> {
        // The snapshot lists the same views elsewhere: shifted, or in any order.
        if (random.nextBoolean()) {
          Collections.rotate(jobs, change.pick());
        } else {
          Collections.shuffle(jobs, random);
        }
      }
      case NODE_EDIT -> {
        if (node >= 0) {
          NodeView old = nodes.get(node);
          nodes.set(node, newNode(random, old.name(), world));
        }
      }
      case NODE_ADD -> {
        String name = "m" + change.pick();
        // A node's name is unique in a snapshot: two additions of the same pick add it once.
        if (nodes.stream().noneMatch(n -> n.name().equals(name))) {
          nodes.add(newNode(random, name, world));
        }
      }
      case NODE_REMOVE -> {
        if (node >= 0) {
          nodes.remove(node);
        }
      }
      case CLOCK -> {
        return new Snapshot(
            jobs,
            nodes,
            world.policy(),
            world.now().plus(Duration.ofSeconds(1 + random.nextInt(40 * 60))),
            world.queues());
      }
      case NEW_RESOURCE -> {
        Map<String, Long> requests = new HashMap<>(Map.of("d.io/licence", 1L));
        JobView created = newJob(random, freshName("r", jobs), nodes);
        requests.putAll(created.requests());
        jobs.add(withRequests(created, requests));
      }
      case DROP_RESOURCE -> {
        // Every request of the name that appeared last goes; so do nodes that offer it.
        jobs.replaceAll(
            j -> j.requests().containsKey("d.io/licence") ? withRequests(j, Map.of()) : j);
        nodes.removeIf(n -> n.capacity().containsKey("d.io/licence"));
      }
    }
    return new Snapshot(jobs, nodes, world.policy(), world.now(), world.queues());
  }

  /** A name no job of the list has, in either namespace. */
  private static String freshName(String prefix, List<JobView> jobs) {
    int n = jobs.size();
    while (true) {
      String name = prefix + n;
      if (jobs.stream().noneMatch(j -> j.name().equals(name))) {
        return name;
      }
      n++;
    }
  }

  private static JobView newJob(Random random, String name, List<NodeView> nodes) {
    Map<String, Long> requests = new HashMap<>();
    for (String resource : AdmissionPropertiesTest.RESOURCES) {
      if (random.nextInt(3) > 0) {
        requests.put(resource, (long) random.nextInt(8));
      }
    }
    List<String> after = new ArrayList<>();
    if (random.nextInt(4) == 0) {
      after.add("j" + random.nextInt(30));
    }
    List<String> locks = random.nextInt(4) == 0 ? List.of("k" + random.nextInt(4)) : List.of();
    String group = random.nextInt(4) == 0 ? "g" + (1 + random.nextInt(2)) : null;
    String origin =
        random.nextInt(5) == 0 && !nodes.isEmpty()
            ? nodes.get(random.nextInt(nodes.size())).name()
            : null;
    return new JobView(
        random.nextBoolean() ? "a" : "b",
        name,
        1,
        requests,
        random.nextBoolean() ? requests : Map.of(),
        after,
        locks,
        group,
        origin,
        JobPhase.Queued,
        null,
        random.nextInt(5) == 0
            ? null
            : AdmissionPropertiesTest.NOW.minus(Duration.ofMinutes(random.nextInt(200))),
        random.nextInt(12) == 0 ? List.of("Resource name cfd-cores has no domain.") : List.of(),
        random.nextInt(6) == 0,
        AdmissionPropertiesTest.selector(random.nextInt(8)));
  }

  private static NodeView newNode(Random random, String name, Snapshot world) {
    Map<String, Long> capacity = new HashMap<>();
    for (String resource : AdmissionPropertiesTest.RESOURCES) {
      if (random.nextInt(4) > 0) {
        capacity.put(resource, 2L + random.nextInt(15));
      }
    }
    if (random.nextInt(4) == 0) {
      capacity.put("d.io/licence", 1L + random.nextInt(3));
    }
    NodeMode[] modes = {NodeMode.Drone, NodeMode.Drone, NodeMode.Background, NodeMode.Off};
    return new NodeView(
        name,
        modes[random.nextInt(modes.length)],
        random.nextInt(3) == 0 ? NodeMode.Drone : null,
        capacity,
        world.now().minusSeconds(random.nextInt(80)),
        random.nextInt(6) > 0,
        random.nextInt(4) == 0 ? capacity : Map.of(),
        List.of(),
        AdmissionPropertiesTest.labels(random.nextInt(4)));
  }

  private static JobView withNamespace(JobView j, String namespace, JobPhase phase, String node) {
    return new JobView(
        namespace,
        j.name(),
        j.generation() + 1,
        j.requests(),
        j.limits(),
        j.after(),
        j.locks(),
        j.group(),
        j.origin(),
        phase,
        node,
        j.queuedAt(),
        j.specProblems(),
        j.suspend(),
        j.nodeSelector());
  }

  private static JobView withRequests(JobView j, Map<String, Long> requests) {
    return edited(j, requests, j.suspend(), j.nodeSelector());
  }

  private static JobView edited(
      JobView j, Map<String, Long> requests, boolean suspend, Map<String, String> selector) {
    return new JobView(
        j.namespace(),
        j.name(),
        j.generation() + 1,
        requests,
        requests == j.requests() ? j.limits() : Map.of(),
        j.after(),
        j.locks(),
        j.group(),
        j.origin(),
        j.phase(),
        j.node(),
        j.queuedAt(),
        j.specProblems(),
        suspend,
        selector);
  }
}
