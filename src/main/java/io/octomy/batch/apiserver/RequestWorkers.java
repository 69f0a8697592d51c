package io.octomy.batch.apiserver;

import io.octomy.batch.apiserver.BearerAuth.Credential;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker threads of the embedded server and the order in which they take requests: a request of
 * this process's controller or agent goes ahead of the users' requests that arrived fewer than
 * {@link #PRECEDENCE} requests before it; otherwise requests are served in arrival order.
 *
 * <p>Why: every create a user sends is followed by a status write of the controller (its decision)
 * and later by the agent's reports. Served in plain arrival order, 16 clients creating jobs get two
 * thirds of the server while the controller's 8 writers get one third, so under a burst the
 * decisions fall further behind the creates the longer it lasts. kube-apiserver's API Priority and
 * Fairness puts controllers at a higher priority level than users' workloads for the same reason.
 * The precedence is bounded so that no user request waits forever behind a stream of the
 * controller's: each is overtaken by fewer than {@link #PRECEDENCE} later ones.
 */
final class RequestWorkers implements AutoCloseable {

  /** How far back in arrivals an in-process request may overtake users' requests. */
  static final int PRECEDENCE = 64;

  private final AtomicLong arrivals = new AtomicLong();
  private final ThreadPoolExecutor pool;

  RequestWorkers(int threads) {
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new PriorityBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "octomy-api-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs {@code work} on a worker, in the order described above. */
  void execute(Credential credential, Runnable work) {
    long arrival = arrivals.getAndIncrement();
    long place = credential == Credential.IN_PROCESS ? arrival - PRECEDENCE : arrival;
    pool.execute(new WaitingRequest(place, arrival, work));
  }

  /** Stops taking requests and waits up to 10 s for those running; then interrupts them. */
  @Override
  public void close() {
    pool.shutdown();
    try {
      if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
        pool.shutdownNow();
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** A request waiting for a worker, ordered by its place, then by arrival. */
  private record WaitingRequest(long place, long arrival, Runnable work)
      implements Runnable, Comparable<WaitingRequest> {
    @Override
    public void run() {
      work.run();
    }

    @Override
    public int compareTo(WaitingRequest other) {
      int byPlace = Long.compare(place, other.place);
      return byPlace != 0 ? byPlace : Long.compare(arrival, other.arrival);
    }
  }
}
