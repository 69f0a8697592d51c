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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Closing the admission loop while a pass runs on its own thread, as a controller that stops (or
 * loses its lease) does: the pass that already decided hands its writes to the writers before they
 * stop, and a pass asked for after the close is not an error; writes the server does not take
 * within the wait are dropped, not sent later against a closed client.
 */
class AdmissionLoopCloseTest {

  @Test
  void aPassRunningWhenTheLoopClosesSendsItsWritesBeforeTheWritersStop() throws Exception {
    CountingClusterView view = new CountingClusterView();
    FakeCluster cluster = view.cluster;
    TestClock clock = TestClock.standing();
    addReadyNode(cluster, clock);
    cluster.add(aJob("a").cpu(1000).build());
    AdmissionLoop loop = passingAtOnce(view, cluster, clock);
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
    assertThat(loop.stopped()).as("nothing of the loop runs any more").isTrue();
  }

  @Test
  void writesStillQueuedWhenTheWaitIsOverAreDroppedNotSentLater() throws Exception {
    FakeCluster cluster = new FakeCluster();
    TestClock clock = TestClock.standing();
    addReadyNode(cluster, clock);
    for (int i = 0; i < 10; i++) {
      cluster.add(aJob("big-" + i).cpu(9000).build()); // each decision is a status to write
    }
    CountDownLatch serverAnswers = new CountDownLatch(1);
    AtomicInteger statusWritesSent = new AtomicInteger();
    AdmissionLoop loop =
        passingAtOnce(cluster, slowServer(cluster, serverAnswers, statusWritesSent, true), clock);
    startAndAwaitBothWriters(loop, statusWritesSent);

    long t0 = System.nanoTime();
    loop.close(Duration.ofMillis(200));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    serverAnswers.countDown();
    Thread.sleep(300);
    assertThat(statusWritesSent)
        .as("the eight writes still queued were dropped, not sent after the close")
        .hasValue(2);
  }

  @Test
  void aWriteThatOutlivesTheWaitLeavesTheLoopNotStoppedUntilItEnds() throws Exception {
    FakeCluster cluster = new FakeCluster();
    TestClock clock = TestClock.standing();
    addReadyNode(cluster, clock);
    for (int i = 0; i < 4; i++) {
      cluster.add(aJob("big-" + i).cpu(9000).build());
    }
    CountDownLatch serverAnswers = new CountDownLatch(1);
    AtomicInteger statusWritesSent = new AtomicInteger();
    // As a request already on the wire: an interrupt does not end it.
    AdmissionLoop loop =
        passingAtOnce(cluster, slowServer(cluster, serverAnswers, statusWritesSent, false), clock);
    startAndAwaitBothWriters(loop, statusWritesSent);

    loop.close(Duration.ofMillis(200));
    assertThat(loop.stopped()).as("a write may still reach the server").isFalse();
    serverAnswers.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!loop.stopped() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(loop.stopped()).isTrue();
  }

  /**
   * A server whose status writes wait for {@code answers}; one that {@code heedsInterrupts} fails
   * them when the waiting thread is interrupted.
   */
  private static ClusterWriter slowServer(
      FakeCluster cluster, CountDownLatch answers, AtomicInteger sent, boolean heedsInterrupts) {
    return (ClusterWriter)
        Proxy.newProxyInstance(
            ClusterWriter.class.getClassLoader(),
            new Class<?>[] {ClusterWriter.class},
            (proxy, method, args) -> {
              if (method.getName().equals("writeStatus")) {
                sent.incrementAndGet();
                while (true) {
                  try {
                    answers.await();
                    break;
                  } catch (InterruptedException e) {
                    if (heedsInterrupts) {
                      return ClusterWriter.Result.FAILED;
                    }
                  }
                }
              }
              try {
                return method.invoke(cluster, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static void startAndAwaitBothWriters(AdmissionLoop loop, AtomicInteger sent)
      throws InterruptedException {
    loop.start();
    loop.activate();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (sent.get() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(sent).as("both writers wait on the server").hasValue(2);
  }

  /** A node of 4,000 cpu-milli whose agent reports now. */
  private static void addReadyNode(FakeCluster cluster, TestClock clock) {
    cluster.add(
        aNode("n1")
            .capacity(ApiFixtures.CPU, 4000)
            .executor(Executor.Process)
            .heartbeat(clock.instant())
            .build());
  }

  /** A loop whose requested passes start at once, with two status writers. */
  private static AdmissionLoop passingAtOnce(
      ClusterView view, ClusterWriter writer, TestClock clock) {
    return new AdmissionLoop(
        view,
        writer,
        Policy.defaults(),
        clock,
        new ControllerMetrics(new SimpleMeterRegistry()),
        new AdmissionLoop.Settings(Duration.ZERO, Duration.ofHours(1), Duration.ofSeconds(30), 2));
  }
}
