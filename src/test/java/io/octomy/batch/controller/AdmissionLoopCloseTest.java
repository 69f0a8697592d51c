package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.api.Executor;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Closing the admission loop while a pass runs on its own thread, as a controller that stops (or
 * loses its lease) does: the pass that already decided hands its writes to the writers before they
 * stop, and a pass asked for after the close is not an error.
 */
class AdmissionLoopCloseTest {

  @Test
  void aPassRunningWhenTheLoopClosesSendsItsWritesBeforeTheWritersStop() throws Exception {
    CountingClusterView view = new CountingClusterView();
    FakeCluster cluster = view.cluster;
    TestClock clock = TestClock.standing();
    cluster.add(
        aNode("n1")
            .capacity(ApiFixtures.CPU, 4000)
            .executor(Executor.Process)
            .heartbeat(clock.instant())
            .build());
    cluster.add(aJob("a").cpu(1000).build());
    AdmissionLoop loop =
        new AdmissionLoop(
            view,
            cluster,
            Policy.defaults(),
            clock,
            new ControllerMetrics(new SimpleMeterRegistry()),
            new AdmissionLoop.Settings(
                Duration.ZERO, Duration.ofHours(1), Duration.ofSeconds(30), 2));
    view.hold();
    loop.start();
    loop.activate(); // asks for a pass, which the view holds while it reads the jobs
    assertThat(view.arrived.tryAcquire(10, TimeUnit.SECONDS)).isTrue();

    Thread closing = new Thread(loop::close, "closing");
    closing.start();
    // close() waits for the running pass; were it to return first, the pass's writes would meet
    // writers already stopped
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (closing.getState() != Thread.State.TIMED_WAITING
        && closing.getState() != Thread.State.TERMINATED
        && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    view.releaseAll();
    closing.join(TimeUnit.SECONDS.toMillis(20));

    assertThat(closing.isAlive()).as("close() returned").isFalse();
    assertThat(cluster.job("a").getStatus()).isNotNull();
    assertThat(cluster.job("a").getStatus().getPhase()).isEqualTo(JobPhase.Admitted);
    loop.requestPass(); // after the close: nothing runs, nothing is thrown
    assertThat(view.passes).hasValue(1);
  }
}
