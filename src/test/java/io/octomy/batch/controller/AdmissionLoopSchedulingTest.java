package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the loop's own thread runs passes: at once on an idle loop, and one pass for everything
 * asked while a pass runs. Passes are counted where they read the cache, and each can be held
 * there, so the test knows a pass is running without timing anything.
 */
class AdmissionLoopSchedulingTest {

  private final CountingClusterView view = new CountingClusterView();
  private AdmissionLoop loop;

  @AfterEach
  void close() {
    view.releaseAll();
    if (loop != null) {
      loop.close();
    }
  }

  private AdmissionLoop loop(Duration passDelay) {
    return loop(passDelay, Duration.ofHours(1));
  }

  private AdmissionLoop loop(Duration passDelay, Duration tick) {
    view.cluster.add(aJob("j1").request(ApiFixtures.CPU, 100).build());
    loop =
        new AdmissionLoop(
            view,
            view.cluster,
            Policy.defaults(),
            TestClock.standing(),
            new ControllerMetrics(new SimpleMeterRegistry()),
            new AdmissionLoop.Settings(passDelay, tick, Duration.ofSeconds(30), 2));
    return loop;
  }

  @Test
  void aPassAskedForOnAnIdleLoopStartsWithoutWaiting() throws Exception {
    loop(AdmissionLoop.Settings.defaults().passDelay()).activate(); // asks for the first pass

    loop.awaitIdle();

    assertThat(view.passes).hasValue(1);
  }

  @Test
  void aPassDelayHoldsTheRequestedPassBack() throws Exception {
    loop(Duration.ofHours(1)).activate();

    loop.awaitIdle();

    assertThat(view.passes).hasValue(0);
  }

  @Test
  void everythingAskedWhileAPassRunsSharesOneNextPass() throws Exception {
    view.hold();
    loop(Duration.ZERO).activate();
    assertThat(view.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue(); // pass 1 is running

    for (int i = 0; i < 100; i++) {
      loop.requestPass();
    }
    view.releaseAll();
    loop.awaitIdle();

    assertThat(view.passes).hasValue(2);
  }

  @Test
  void aRequestAfterAPassStartedGetsAPassOfItsOwn() throws Exception {
    view.hold();
    loop(Duration.ZERO).activate();
    assertThat(view.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
    loop.requestPass();
    view.releaseOne(); // pass 1 ends; pass 2, asked for during it, starts and is held
    assertThat(view.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue();

    loop.requestPass(); // pass 2 may have read the cache before this change
    view.releaseAll();
    loop.awaitIdle();

    assertThat(view.passes).hasValue(3);
  }

  @Test
  void anErrorInAPassDoesNotStopTheTimer() throws Exception {
    view.failing.set(3); // the requested first pass and at least two of the timer's
    loop(Duration.ZERO, Duration.ofMillis(20)).start();
    loop.activate();

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (view.passes.get() < 6 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }

    assertThat(view.passes.get()).isGreaterThanOrEqualTo(6);
  }
}
