package io.octomy.batch.realcluster;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.octomy.batch.fixtures.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every version of one Lease that a watch delivers, each with the moment it arrived: a write that a
 * later one replaced within a second (a release, then the take-over) is seen all the same, where
 * polling could miss it.
 */
final class LeaseHistory implements AutoCloseable {

  /** One version; {@code receivedNanos} is {@link System#nanoTime()} at its arrival. */
  record Version(long receivedNanos, String holder, Integer durationSeconds, Integer transitions) {}

  private final List<Version> versions = new CopyOnWriteArrayList<>();
  private final Watch watch;

  LeaseHistory(KubernetesClient client, String namespace, String name) {
    watch =
        client
            .resources(Lease.class)
            .inNamespace(namespace)
            .withName(name)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Lease lease) {
                    LeaseSpec s = lease.getSpec();
                    if (action != Action.DELETED && s != null) {
                      versions.add(
                          new Version(
                              System.nanoTime(),
                              s.getHolderIdentity(),
                              s.getLeaseDurationSeconds(),
                              s.getLeaseTransitions()));
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    // The test reads what arrived; a watch that ends early shows as a missing
                    // version there.
                  }
                });
  }

  /** Waits for the watch's first version (the Lease as it is), so no later write goes unseen. */
  void awaitStarted(Duration timeout) throws InterruptedException {
    Eventually.within(
        (int) timeout.toSeconds(),
        () -> {
          if (versions.isEmpty()) {
            throw new AssertionError("no version of the Lease within " + timeout);
          }
        });
  }

  /** The versions that arrived after {@code nanos}, in order. */
  List<Version> since(long nanos) {
    return versions.stream().filter(v -> v.receivedNanos() > nanos).toList();
  }

  /** For messages: each version as {@code +MS holder/durationSeconds/transitions}. */
  static String describe(List<Version> versions, long originNanos) {
    return versions.stream()
        .map(
            v ->
                "+%d ms %s/%ss/%s"
                    .formatted(
                        (v.receivedNanos() - originNanos) / 1_000_000,
                        v.holder() == null ? "<none>" : "'" + v.holder() + "'",
                        v.durationSeconds(),
                        v.transitions()))
        .toList()
        .toString();
  }

  @Override
  public void close() {
    watch.close();
  }
}
