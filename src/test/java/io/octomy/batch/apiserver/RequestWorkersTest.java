package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.BearerAuth.Credential;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The order in which the embedded server's one worker takes queued requests: this process's before
 * users' that arrived shortly before them, and no user's overtaken by more than the precedence.
 */
class RequestWorkersTest {

  @Test
  void inProcessRequestsGoAheadOfUsersRequestsWaitingBeforeThem() throws Exception {
    List<String> served = serveInOrder(List.of("u1", "u2", "p1", "u3", "p2"));

    assertThat(served).containsExactly("p1", "p2", "u1", "u2", "u3");
  }

  @Test
  void requestsWithTheSameCredentialAreServedInArrivalOrder() throws Exception {
    assertThat(serveInOrder(List.of("u1", "u2", "u3"))).containsExactly("u1", "u2", "u3");
    assertThat(serveInOrder(List.of("p1", "p2", "p3"))).containsExactly("p1", "p2", "p3");
  }

  @Test
  void aUsersRequestIsOvertakenOnlyByThoseArrivingWithinThePrecedenceAfterIt() throws Exception {
    List<String> arrivals = new ArrayList<>(List.of("u1"));
    for (int i = 1; i <= 3 * RequestWorkers.PRECEDENCE; i++) {
      arrivals.add("p" + i);
    }

    List<String> served = serveInOrder(arrivals);

    // p_i arrives i requests after u1: it goes first when i < PRECEDENCE.
    assertThat(served.indexOf("u1")).isEqualTo(RequestWorkers.PRECEDENCE - 1);
    assertThat(served.subList(0, RequestWorkers.PRECEDENCE - 1))
        .allMatch(name -> name.startsWith("p"));
    assertThat(served).hasSize(arrivals.size());
  }

  /**
   * Queues the named requests (u… a user's, p… this process's) behind one that holds the only
   * worker, then lets it go and returns the order they ran in.
   */
  private static List<String> serveInOrder(List<String> names) throws InterruptedException {
    List<String> served = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch hold = new CountDownLatch(1);
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(names.size());
    try (RequestWorkers workers = new RequestWorkers(1)) {
      workers.execute(
          Credential.USER,
          () -> {
            holding.countDown();
            await(hold);
          });
      await(holding);
      for (String name : names) {
        Credential credential = name.startsWith("p") ? Credential.IN_PROCESS : Credential.USER;
        workers.execute(
            credential,
            () -> {
              served.add(name);
              done.countDown();
            });
      }
      hold.countDown();
      assertThat(done.await(30, TimeUnit.SECONDS)).as("all served").isTrue();
    }
    return List.copyOf(served);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
