package io.octomy.batch.visibility;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.ForecastWorlds;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The visibility answers never disagree with the pass: the queue is the pass order with the pass's
 * reasons, "why" starts with the pass's reason (and has no blocker exactly when the pass admits),
 * and "fit" gives what the pass decides once the job is added to the snapshot.
 */
class VisibilityPropertiesTest {

  @Provide
  Arbitrary<Snapshot> worlds() {
    return Arbitraries.oneOf(ForecastWorlds.worlds(), ForecastWorlds.crowdedWorlds());
  }

  /** Three job types, two of them timed; holders started a few minutes ago. */
  static LearntRunTimes runTimes(Snapshot world) {
    Map<JobKey, LearntRunTimes.JobFacts> facts = new HashMap<>();
    for (JobView j : world.jobs()) {
      int i = Integer.parseInt(j.name().substring(1));
      facts.put(
          j.key(),
          new LearntRunTimes.JobFacts(
              "t" + i % 3,
              j.phase().holdsReservation() ? world.now().minus(Duration.ofMinutes(i % 7)) : null));
    }
    Map<LearntRunTimes.JobType, List<Long>> runs = new HashMap<>();
    for (String ns : List.of("a", "b")) {
      runs.put(new LearntRunTimes.JobType(ns, "t0"), List.of(120L, 300L, 300L, 900L));
      runs.put(new LearntRunTimes.JobType(ns, "t1"), List.of(60L, 2400L));
    }
    return new LearntRunTimes(runs, facts, world.now());
  }

  @Property(tries = 200)
  void theQueueIsThePassOrderWithThePasssReasons(@ForAll("worlds") Snapshot world) {
    AdmissionResult pass = AdmissionPass.decide(world);
    List<QueuedJob> queue = new Visibility(world, runTimes(world)).queue(null);
    assertThat(queue.stream().map(q -> new JobKey(q.namespace(), q.name())).toList())
        .isEqualTo(new ArrayList<>(pass.decisions().keySet()));
    for (QueuedJob q : queue) {
      Decision d = pass.decisions().get(new JobKey(q.namespace(), q.name()));
      assertThat(q.reason()).isEqualTo(d.reason().code());
      assertThat(q.message()).isEqualTo(d.message());
      assertThat(q.expectedStart() == null).isEqualTo(q.expectedNode() == null);
      if (d instanceof Decision.Admit a) {
        assertThat(q.expectedStart()).isEqualTo(world.now());
        assertThat(q.expectedNode()).isEqualTo(a.node());
      }
    }
  }

  @Property(tries = 200)
  void whyStartsWithThePasssReason(@ForAll("worlds") Snapshot world) {
    AdmissionResult pass = AdmissionPass.decide(world);
    Visibility visibility = new Visibility(world, runTimes(world));
    pass.decisions()
        .forEach(
            (key, d) -> {
              Explanation why = visibility.why(key).orElseThrow();
              if (d instanceof Decision.Admit) {
                assertThat(why.blockers()).as("%s", key).isEmpty();
              } else {
                assertThat(why.blockers()).as("%s", key).isNotEmpty();
                assertThat(why.blockers().get(0).reason()).isEqualTo(d.reason().code());
                why.blockers()
                    .forEach(b -> assertThat(b.remedy()).as("%s", b).isNotBlank().endsWith("."));
              }
            });
  }

  @Property(tries = 300)
  void fitIsWhatThePassDecidesWithTheJobAdded(
      @ForAll("worlds") Snapshot world,
      @ForAll("requests") Map<String, Long> requests,
      @ForAll boolean guaranteed) {
    JobView candidate =
        new JobView(
            "a",
            "candidate",
            1,
            requests,
            guaranteed ? requests : Map.of(),
            List.of(),
            List.of(),
            null,
            null,
            JobPhase.Queued,
            null,
            world.now(),
            List.of());
    FitAnswer fit = new Visibility(world, runTimes(world)).fit(candidate, "t0");
    List<JobView> jobs = new ArrayList<>(world.jobs());
    jobs.add(candidate);
    Decision d =
        AdmissionPass.decide(new Snapshot(jobs, world.nodes(), world.policy(), world.now()))
            .decisions()
            .get(candidate.key());
    assertThat(fit.admitted()).isEqualTo(d instanceof Decision.Admit);
    assertThat(fit.phase()).isEqualTo(d.phase().name());
    assertThat(fit.node()).isEqualTo(d instanceof Decision.Admit a ? a.node() : null);
    assertThat(fit.explanation().job().reason()).isEqualTo(d.reason().code());
  }

  @Provide
  Arbitrary<Map<String, Long>> requests() {
    return Arbitraries.maps(
            Arbitraries.of("a.io/cpu", "b.io/mem"), Arbitraries.longs().between(0, 10))
        .ofMaxSize(2);
  }
}
