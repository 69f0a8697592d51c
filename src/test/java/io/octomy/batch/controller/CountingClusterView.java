package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import java.util.Collection;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cache whose every read of the jobs is one pass; {@link #hold} keeps passes waiting there, deaf
 * to interrupts (as a pass reading the informers' cache is when its loop is closed).
 */
final class CountingClusterView implements ClusterView {
  final FakeCluster cluster = new FakeCluster();
  final AtomicInteger passes = new AtomicInteger();
  final Semaphore arrived = new Semaphore(0);
  final Semaphore permits = new Semaphore(0);
  volatile boolean holding;

  /** Reads of the jobs still to fail with an Error, as a class that cannot be loaded does. */
  final AtomicInteger failing = new AtomicInteger();

  void hold() {
    holding = true;
  }

  /** Lets the held pass go on; later passes are held again. */
  void releaseOne() {
    permits.release();
  }

  void releaseAll() {
    holding = false;
    permits.release(1000);
  }

  @Override
  public Collection<BatchJob> jobs() {
    passes.incrementAndGet();
    arrived.release();
    if (failing.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new NoClassDefFoundError("io/example/Missing");
    }
    if (holding) {
      permits.acquireUninterruptibly();
    }
    return cluster.jobs();
  }

  @Override
  public Collection<BatchNode> nodes() {
    return cluster.nodes();
  }

  @Override
  public Collection<Pod> jobPods() {
    return cluster.jobPods();
  }
}
