package io.octomy.batch.controller.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The forecast is computed once per pass however many read it at once; a reader who accepts a
 * recent one is answered at once, however old, while the newer one is computed for the next, one
 * computation at a time. When it is computed ahead of readers is {@link ForecastsAheadTest}'s.
 */
class PassForecastsTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private final AtomicInteger computed = new AtomicInteger();
  private final List<Runnable> queuedInBackground = new ArrayList<>();
  private volatile CountDownLatch release = new CountDownLatch(0);

  private final PassForecasts forecasts =
      new PassForecasts(
          pass -> {
            computed.incrementAndGet();
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return List.of(job(pass.snapshot().now().toString()));
          },
          queuedInBackground::add,
          TestClock.at(NOW));

  private static AdmissionLoop.LastPass pass(Instant at) {
    Snapshot s = new Snapshot(List.of(), List.of(), Policy.defaults(), at);
    return new AdmissionLoop.LastPass(s, AdmissionPass.decide(s));
  }

  private static QueuedJob job(String name) {
    return new QueuedJob(
        "a", name, 1, 1, 0, "BestEffort", "WaitingForCapacity", "", null, null, null, null, "");
  }

  @Test
  void readersOfOnePassAtOnceShareOneComputation() throws Exception {
    AdmissionLoop.LastPass pass = pass(NOW);
    release = new CountDownLatch(1);
    ExecutorService readers = Executors.newFixedThreadPool(6);
    try {
      List<Future<PassForecasts.KeptForecast>> answers = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        answers.add(readers.submit(() -> forecasts.ofPass(pass)));
      }
      Thread.sleep(200);
      release.countDown();
      for (Future<PassForecasts.KeptForecast> a : answers) {
        assertThat(a.get(10, TimeUnit.SECONDS).generation()).isEqualTo(1);
      }
    } finally {
      readers.shutdownNow();
    }
    assertThat(computed).hasValue(1);
    assertThat(forecasts.ofPass(pass).generation()).as("and kept for the next").isEqualTo(1);
    assertThat(computed).hasValue(1);
    assertThat(forecasts.ofPass(pass(NOW.plusSeconds(5))).generation()).isEqualTo(2);
  }

  @Test
  void aRecentReadIsAnsweredAtOnceAndTheNewPassComputedOnceForTheNext() {
    assertThat(queuedInBackground).isEmpty();
    PassForecasts.KeptForecast first = forecasts.recent(pass(NOW));
    assertThat(first.jobs()).extracting(QueuedJob::name).containsExactly(NOW.toString());
    assertThat(queuedInBackground).as("with nothing kept, the reader waits for it").isEmpty();

    AdmissionLoop.LastPass next = pass(NOW.plusSeconds(5));
    assertThat(forecasts.recent(next)).isSameAs(first);
    assertThat(forecasts.recent(pass(NOW.plusSeconds(10))))
        .as("one computation at a time in the background")
        .isSameAs(first);
    assertThat(queuedInBackground).hasSize(1);
    queuedInBackground.get(0).run();
    assertThat(forecasts.recent(next).jobs())
        .extracting(QueuedJob::name)
        .containsExactly(NOW.plusSeconds(5).toString());
    assertThat(computed).hasValue(2);

    assertThat(queuedInBackground)
        .as("the pass asked for while one ran is computed after it, in the background")
        .hasSize(2);
    queuedInBackground.get(1).run();
    PassForecasts.KeptForecast latest = forecasts.recent(pass(NOW.plusSeconds(10)));
    assertThat(latest.jobs())
        .extracting(QueuedJob::name)
        .containsExactly(NOW.plusSeconds(10).toString());

    AdmissionLoop.LastPass muchLater = pass(NOW.plus(Duration.ofHours(1)));
    assertThat(forecasts.recent(muchLater))
        .as("however old the newest done is, it is given at once (its pass says which)")
        .isSameAs(latest);
    assertThat(queuedInBackground).hasSize(3);
    assertThat(computed).hasValue(3);
  }

  @Test
  void whileANewerOneIsComputedTheNewestIsGivenHoweverOld() {
    PassForecasts.KeptForecast first = forecasts.recent(pass(NOW));
    forecasts.recent(pass(NOW.plusSeconds(5)));
    assertThat(queuedInBackground).hasSize(1);
    assertThat(forecasts.recent(pass(NOW.plus(Duration.ofMinutes(10)))))
        .as("one under way: the newest at once, and no second computation")
        .isSameAs(first);
    assertThat(queuedInBackground).hasSize(1);
    assertThat(computed).hasValue(1);
  }

  @Test
  void aFailedForecastIsAnsweredAsItsErrorAndTriedAgainByTheNextReader() {
    AtomicInteger calls = new AtomicInteger();
    PassForecasts failingOnce =
        new PassForecasts(
            pass -> {
              if (calls.incrementAndGet() == 1) {
                throw new VisibilityException(503, "ServiceUnavailable", "not yet");
              }
              return List.of(job("x"));
            },
            Runnable::run,
            TestClock.at(NOW));
    AdmissionLoop.LastPass pass = pass(NOW);
    assertThatThrownBy(() -> failingOnce.ofPass(pass))
        .isInstanceOf(VisibilityException.class)
        .hasMessage("not yet");
    assertThat(failingOnce.ofPass(pass).jobs()).hasSize(1);
    assertThat(calls).hasValue(2);
  }
}
