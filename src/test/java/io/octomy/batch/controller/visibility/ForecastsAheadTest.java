package io.octomy.batch.controller.visibility;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.visibility.QueuedJob;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When the forecast is computed ahead of readers: after the first pass of a replica that begins to
 * lead, and after each pass while someone read within a minute; never for a controller nobody looks
 * at, never on the thread that tells of the pass (the admission loop's), one at a time.
 */
class ForecastsAheadTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private final TestClock clock = TestClock.at(NOW);
  private final List<AdmissionLoop.LastPass> computedFor = new ArrayList<>();
  private final List<Runnable> background = new ArrayList<>();
  private final PassForecasts forecasts =
      new PassForecasts(
          pass -> {
            computedFor.add(pass);
            return List.of(job(pass.snapshot().now().toString()));
          },
          background::add,
          clock);

  /** A pass decided {@code seconds} after NOW; the clock moved there. */
  private AdmissionLoop.LastPass passAt(long seconds) {
    clock.advance(Duration.between(clock.instant(), NOW.plusSeconds(seconds)));
    Snapshot s = new Snapshot(List.of(), List.of(), Policy.defaults(), clock.instant());
    return new AdmissionLoop.LastPass(s, AdmissionPass.decide(s));
  }

  private static QueuedJob job(String name) {
    return new QueuedJob(
        "a", name, 1, 1, 0, "BestEffort", "WaitingForCapacity", "", null, null, null, null, "");
  }

  /** Runs what was handed to the background, and what that hands on, as its thread would. */
  private void runBackground() {
    while (!background.isEmpty()) {
      background.remove(0).run();
    }
  }

  @Test
  void theFirstPassOfALeaderIsForecastWithoutAReaderAndTheFirstReadIsAnsweredFromIt() {
    AdmissionLoop.LastPass first = passAt(1);
    forecasts.passDecided(first, true);
    assertThat(computedFor).as("nothing computed on the loop's thread").isEmpty();
    assertThat(background).hasSize(1);

    runBackground();
    assertThat(computedFor).containsExactly(first);

    PassForecasts.KeptForecast read = forecasts.recent(first);
    assertThat(read.pass()).isSameAs(first);
    assertThat(computedFor).as("the reader computed nothing").hasSize(1);
    assertThat(background).isEmpty();
  }

  @Test
  void withNobodyReadingForAMinuteLaterPassesComputeNothing() {
    forecasts.passDecided(passAt(1), true);
    runBackground();
    forecasts.recent(passAt(2)); // a read, then nobody for a minute
    runBackground();
    int before = computedFor.size();

    forecasts.passDecided(passAt(2 + 61), false);
    forecasts.passDecided(passAt(2 + 62), false);
    forecasts.passDecided(passAt(600), false);

    assertThat(background).isEmpty();
    assertThat(computedFor).hasSize(before);
  }

  @Test
  void withoutAnyReadOnlyTheFirstPassIsForecast() {
    forecasts.passDecided(passAt(1), true);
    runBackground();

    forecasts.passDecided(passAt(2), false);
    forecasts.passDecided(passAt(3), false);

    assertThat(background).isEmpty();
    assertThat(computedFor).hasSize(1);
  }

  @Test
  void aReadWithinAMinuteHasTheNextPassForecastAheadAndTheNextReadAnsweredFromIt() {
    forecasts.passDecided(passAt(1), true);
    runBackground();
    forecasts.recent(passAt(100)); // long idle: the first is given, the last pass's computed
    runBackground();

    AdmissionLoop.LastPass next = passAt(100 + 59);
    forecasts.passDecided(next, false);
    assertThat(computedFor).as("not on the loop's thread").doesNotContain(next);
    runBackground();
    assertThat(computedFor).contains(next);

    int before = computedFor.size();
    assertThat(forecasts.recent(next).pass()).isSameAs(next);
    assertThat(forecasts.ofPass(next).pass()).isSameAs(next);
    assertThat(computedFor).hasSize(before);
  }

  @Test
  void passesDecidedWhileOneIsComputedShareOneComputationOfTheNewest() {
    forecasts.recent(passAt(1)); // a reader
    forecasts.passDecided(passAt(2), false);
    forecasts.passDecided(passAt(3), false);
    AdmissionLoop.LastPass newest = passAt(4);
    forecasts.passDecided(newest, false);
    assertThat(background).as("one computation at a time").hasSize(1);

    runBackground();

    assertThat(computedFor)
        .extracting(p -> p.snapshot().now())
        .containsExactly(NOW.plusSeconds(1), NOW.plusSeconds(2), NOW.plusSeconds(4));
  }
}
