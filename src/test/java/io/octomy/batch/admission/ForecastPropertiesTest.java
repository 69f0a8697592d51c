package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The forecast and the gate reports never disagree with the pass: the next pass they report is the
 * pass itself, every report's first gate is the reason the pass gives, and the simulated later
 * passes admit each job at the same time and on the same node as running the whole pass again at
 * every expected end ({@link NaiveFuture}).
 */
class ForecastPropertiesTest {

  @Provide
  Arbitrary<Snapshot> worlds() {
    return ForecastWorlds.worlds();
  }

  @Provide
  Arbitrary<Snapshot> crowdedWorlds() {
    return ForecastWorlds.crowdedWorlds();
  }

  @Provide
  Arbitrary<Snapshot> anyWorlds() {
    return Arbitraries.oneOf(ForecastWorlds.worlds(), ForecastWorlds.crowdedWorlds());
  }

  /** Run times that vary by job and make several jobs end at the same moment. */
  static final RunTimeModel RUN_TIMES =
      new RunTimeModel() {
        @Override
        public Instant expectedEnd(JobView job) {
          return ForecastWorlds.NOW.plus(Duration.ofMinutes(2L * (index(job) % 4) - 1));
        }

        @Override
        public Duration expectedRunTime(JobView job) {
          return Duration.ofMinutes(1 + (index(job) * 7L) % 11);
        }
      };

  static int index(JobView job) {
    return Integer.parseInt(job.name().substring(1));
  }

  @Property(tries = 400)
  void laterPassesAdmitEachJobWhenAndWhereRepeatedPassesWould(@ForAll("worlds") Snapshot world) {
    Forecast forecast = AdmissionPass.forecast(world, RUN_TIMES, Set.of());
    Map<JobKey, NaiveFuture.Start> naive = NaiveFuture.starts(world, RUN_TIMES);
    Map<JobKey, NaiveFuture.Start> fast = new HashMap<>();
    forecast.starts().forEach((k, s) -> fast.put(k, new NaiveFuture.Start(s.at(), s.node())));
    assertThat(fast).isEqualTo(naive);
    Statistics.label("started later")
        .collect(forecast.starts().size() > forecast.next().admissions().size());
    Statistics.label("started later").coverage(c -> c.check(true).percentage(p -> p > 30));
  }

  @Property(tries = 400)
  void alsoWhenStarvationHoldsComeAndGo(@ForAll("crowdedWorlds") Snapshot world) {
    Forecast forecast = AdmissionPass.forecast(world, RUN_TIMES, Set.of());
    Map<JobKey, NaiveFuture.Start> fast = new HashMap<>();
    forecast.starts().forEach((k, s) -> fast.put(k, new NaiveFuture.Start(s.at(), s.node())));
    assertThat(fast).isEqualTo(NaiveFuture.starts(world, RUN_TIMES));
    Statistics.label("held now").collect(forecast.next().hold() != null);
    Statistics.label("held now").coverage(c -> c.check(true).percentage(p -> p > 20));
  }

  /**
   * A starving job waiting for a lock is the job each later pass protects while the lock stays
   * held: j4, younger and of its group (at most one running), is held back for it at every pass
   * until j0 gets the lock at j3's end, and only then takes the group's slot after j0 ends.
   */
  @Example
  void aStarvingJobWaitingForALockIsProtectedAtEveryLaterPass() {
    ForecastWorlds.NodeSpec node =
        new ForecastWorlds.NodeSpec(NodeMode.Drone, null, 12, 12, true, 0);
    Snapshot world =
        ForecastWorlds.world(
            List.of(node),
            List.of(
                queued(1, 200, List.of("k1"), "g2"),
                running(0, List.of()),
                running(0, List.of()),
                running(1, List.of("k1")),
                queued(1, 10, List.of(), "g2")),
            null,
            1);
    Forecast forecast = AdmissionPass.forecast(world, RUN_TIMES, Set.of());
    assertThat(naive(forecast)).isEqualTo(NaiveFuture.starts(world, RUN_TIMES));
    Instant lockFree = ForecastWorlds.NOW.plus(Duration.ofMinutes(5));
    assertThat(forecast.starts().get(key(0)).at()).isEqualTo(lockFree);
    assertThat(forecast.starts().get(key(4)).at()).isAfter(lockFree);
  }

  /**
   * A starving job with two locks, waiting for its second, finds its first taken by an older
   * starving job admitted when capacity frees: it now waits for the first, and is protected.
   */
  @Example
  void aStarvingJobWhoseEarlierLockIsTakenWaitsForThatOne() {
    ForecastWorlds.NodeSpec node =
        new ForecastWorlds.NodeSpec(NodeMode.Drone, null, 12, 12, true, 0);
    Snapshot world =
        ForecastWorlds.world(
            List.of(node),
            List.of(
                queued(1, 200, List.of("k1", "k2"), null),
                running(10, List.of()),
                queued(10, 300, List.of("k1"), null),
                running(1, List.of("k2")),
                queued(1, 10, List.of("k1"), null)),
            null,
            1);
    Forecast forecast = AdmissionPass.forecast(world, RUN_TIMES, Set.of());
    assertThat(naive(forecast)).isEqualTo(NaiveFuture.starts(world, RUN_TIMES));
    assertThat(forecast.starts().get(key(2)).at())
        .isEqualTo(ForecastWorlds.NOW.plus(Duration.ofMinutes(1)));
    assertThat(forecast.starts().get(key(0)).at()).isAfter(forecast.starts().get(key(2)).at());
  }

  /** A Queued job of namespace a on no origin (named j and its place in the list). */
  private static ForecastWorlds.JobSpec queued(
      long cpu, int minutesAgo, List<String> locks, String group) {
    return new ForecastWorlds.JobSpec(
        "a", JobPhase.Queued, 0, cpu, 1, false, minutesAgo, List.of(), locks, group, -1);
  }

  /** A job of namespace a running on n0 (its end: {@link #RUN_TIMES}). */
  private static ForecastWorlds.JobSpec running(long cpu, List<String> locks) {
    return new ForecastWorlds.JobSpec(
        "a", JobPhase.Running, 0, cpu, 0, false, 30, List.of(), locks, null, -1);
  }

  private static JobKey key(int index) {
    return new JobKey("a", "j" + index);
  }

  private static Map<JobKey, NaiveFuture.Start> naive(Forecast forecast) {
    Map<JobKey, NaiveFuture.Start> fast = new HashMap<>();
    forecast.starts().forEach((k, s) -> fast.put(k, new NaiveFuture.Start(s.at(), s.node())));
    return fast;
  }

  @Property(tries = 300)
  void theNextPassIsThePass(@ForAll("worlds") Snapshot world) {
    AdmissionResult pass = AdmissionPass.decide(world);
    Set<JobKey> all = new HashSet<>(pass.decisions().keySet());
    assertThat(AdmissionPass.forecast(world, RUN_TIMES, all).next()).isEqualTo(pass);
    assertThat(AdmissionPass.inspect(world, all).result()).isEqualTo(pass);
  }

  /**
   * The visibility API forecasts from the memory of the controller's last pass, over that pass's
   * snapshot with its admissions applied and the clock a few seconds on: the same forecast, starts,
   * ends, next pass and gate reports, as without the memory.
   */
  @Property(tries = 200)
  void aForecastFromTheLastPasssMemoryIsTheSameForecast(@ForAll("anyWorlds") Snapshot world) {
    RememberedPass last = AdmissionPass.decide(world, PassMemory.empty());
    List<JobView> jobs = new ArrayList<>();
    for (JobView job : world.jobs()) {
      Decision d = last.result().decisions().get(job.key());
      jobs.add(d instanceof Decision.Admit a ? job.withPhase(JobPhase.Admitted, a.node()) : job);
    }
    Snapshot applied =
        new Snapshot(jobs, world.nodes(), world.policy(), world.now().plus(Duration.ofSeconds(5)));
    Set<JobKey> inspect = allQueued(applied);
    Forecast remembering = AdmissionPass.forecast(applied, last.memory(), RUN_TIMES, inspect);
    Forecast cold = AdmissionPass.forecast(applied, RUN_TIMES, inspect);
    assertThat(remembering).isEqualTo(cold);
    assertThat(List.copyOf(remembering.starts().keySet()))
        .isEqualTo(List.copyOf(cold.starts().keySet()));
    Statistics.label("expected to start later")
        .collect(cold.starts().size() > cold.next().admissions().size());
    Statistics.label("expected to start later")
        .coverage(c -> c.check(true).percentage(p -> p > 20));
  }

  /**
   * The simulated passes decide without sentences ({@link AdmissionRules#withoutSentences}): the
   * same decisions as the pass with them, whatever the world, only the messages left empty.
   */
  @Property(tries = 300)
  void decisionsWithoutSentencesAreTheSameDecisions(@ForAll("anyWorlds") Snapshot world) {
    AdmissionResult worded = AdmissionPass.decide(world);
    AdmissionRules pass = AdmissionPass.prepared(world, PassMemory.empty(), false);
    pass.withoutSentences();
    AdmissionResult bare = pass.decideAll(null);
    assertThat(bare.decisions().keySet()).containsExactlyElementsOf(worded.decisions().keySet());
    assertThat(bare.admissions()).isEqualTo(worded.admissions());
    assertThat(bare.hold()).isEqualTo(worded.hold());
    worded
        .decisions()
        .forEach(
            (key, decision) -> {
              Decision other = bare.decisions().get(key);
              assertThat(other.reason()).as("%s", key).isEqualTo(decision.reason());
              assertThat(other.waitingOn()).as("%s", key).isEqualTo(decision.waitingOn());
              assertThat(other.starving()).as("%s", key).isEqualTo(decision.starving());
              if (decision instanceof Decision.Wait) {
                assertThat(other.message()).isEmpty();
              } else {
                assertThat(other).isEqualTo(decision);
              }
              Statistics.label("reason").collect(decision.reason());
            });
  }

  @Property(tries = 300)
  void everyReportsFirstGateIsThePasssReason(@ForAll("worlds") Snapshot world) {
    Inspection inspection = AdmissionPass.inspect(world, allQueued(world));
    List<JobKey> order = new ArrayList<>(inspection.result().decisions().keySet());
    inspection
        .result()
        .decisions()
        .forEach(
            (key, decision) -> {
              GateReport report = inspection.report(key).orElseThrow();
              assertThat(report.position()).isEqualTo(order.indexOf(key) + 1);
              if (decision instanceof Decision.Admit) {
                assertThat(report.failing()).as("%s admitted", key).isEmpty();
              } else {
                assertThat(report.first().orElseThrow().reason())
                    .as("%s: %s", key, decision.message())
                    .isEqualTo(decision.reason());
              }
              Statistics.label("first gate").collect(decision.reason());
            });
  }

  static Set<JobKey> allQueued(Snapshot world) {
    Set<JobKey> keys = new HashSet<>();
    world.jobs().stream().filter(j -> j.phase() == JobPhase.Queued).forEach(j -> keys.add(j.key()));
    return keys;
  }
}
