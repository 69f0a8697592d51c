package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The loop tells its listener of each pass, marking the first since this replica began to lead (the
 * visibility API forecasts it without waiting for a reader), on the loop's own thread.
 */
class AdmissionLoopPassListenerTest {

  private record Told(AdmissionLoop.LastPass pass, boolean first, String thread) {}

  private final CountingClusterView view = new CountingClusterView();
  private final List<Told> told = new CopyOnWriteArrayList<>();
  private AdmissionLoop loop;

  @AfterEach
  void close() {
    if (loop != null) {
      loop.close();
    }
  }

  private AdmissionLoop loop() {
    view.cluster.add(aJob("j1").request(ApiFixtures.CPU, 100).build());
    loop =
        new AdmissionLoop(
            view,
            view.cluster,
            Policy.defaults(),
            TestClock.standing(),
            new ControllerMetrics(new SimpleMeterRegistry()),
            new AdmissionLoop.Settings(
                Duration.ZERO, Duration.ofHours(1), Duration.ofSeconds(30), 2));
    return loop;
  }

  private void listen() {
    loop.onPass((pass, first) -> told.add(new Told(pass, first, Thread.currentThread().getName())));
  }

  @Test
  void theFirstPassAfterLeadingBeginsIsToldAsTheFirstAndLaterOnesNot() throws Exception {
    loop();
    listen();
    loop.activate();
    loop.awaitIdle();
    loop.requestPass();
    loop.awaitIdle();

    assertThat(told).extracting(Told::first).containsExactly(true, false);
    assertThat(told.get(1).pass()).isSameAs(loop.lastPass().orElseThrow());
    assertThat(told).extracting(Told::thread).containsOnly("admission-loop");

    loop.deactivate();
    loop.activate(); // leading again: its first pass is a first again
    loop.awaitIdle();
    assertThat(told).extracting(Told::first).containsExactly(true, false, true);
  }

  @Test
  void aListenerSetAfterTheFirstPassHearsOfTheLastOneAsTheFirst() throws Exception {
    loop().activate();
    loop.awaitIdle();

    listen();

    assertThat(told).hasSize(1);
    assertThat(told.get(0).first()).isTrue();
    assertThat(told.get(0).pass()).isSameAs(loop.lastPass().orElseThrow());
  }
}
