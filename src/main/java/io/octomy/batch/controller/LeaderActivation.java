package io.octomy.batch.controller;

import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a replica that has just taken the Lease decide as soon as its informers have synced. The
 * first reconcile activates the loop too, but JOSDK reconciles only when a BatchJob exists: on an
 * empty cluster a new leader would never make its first pass, so it would never publish itself as
 * the replica that answers visibility calls and serves the reservation webhook.
 */
final class LeaderActivation {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderActivation.class);
  private static final long CHECK_MILLIS = 50;

  private final AdmissionLoop loop;
  private final AtomicReference<RegisteredController<?>> controller = new AtomicReference<>();
  private final AtomicBoolean leading = new AtomicBoolean();

  LeaderActivation(AdmissionLoop loop) {
    this.loop = loop;
  }

  /** The controller whose informers are waited for; set once it is registered. */
  void watch(RegisteredController<?> registered) {
    controller.set(registered);
  }

  /** The Lease is ours: activate the loop once every informer has synced, unless lost first. */
  void startedLeading() {
    leading.set(true);
    Thread waiter =
        new Thread(
            () -> {
              while (leading.get() && !synced()) {
                try {
                  Thread.sleep(CHECK_MILLIS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
              synchronized (this) {
                // Under the lock stoppedLeading takes: the Lease lost after the check could
                // otherwise leave a loop activated that its caller has just deactivated.
                if (leading.get()) {
                  loop.activate();
                }
              }
            },
            "octomy-leader-activation");
    waiter.setDaemon(true);
    waiter.start();
  }

  /** The Lease is lost: no activation from here on; the caller deactivates the loop after this. */
  synchronized void stoppedLeading() {
    leading.set(false);
  }

  private boolean synced() {
    RegisteredController<?> registered = controller.get();
    if (registered == null) {
      return false;
    }
    try {
      var informers = registered.getControllerHealthInfo().informerEventSourceHealthIndicators();
      return !informers.isEmpty()
          && informers.values().stream()
              .map(i -> i.informerHealthIndicators().values())
              .allMatch(LeaderActivation::allSynced);
    } catch (RuntimeException e) {
      // The controller's event sources may not have been made yet: look again.
      LOG.debug("informers not readable yet: {}", e.toString());
      return false;
    }
  }

  private static boolean allSynced(Collection<InformerHealthIndicator> informers) {
    return !informers.isEmpty() && informers.stream().allMatch(InformerHealthIndicator::hasSynced);
  }
}
