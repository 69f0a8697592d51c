package io.octomy.batch.controller;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * What {@code /readyz} answers. A standby replica is ready once it has started and seen another
 * replica hold the Lease, so that rolling updates see every healthy replica Ready. The replica that
 * decides is ready only once it also answers what it serves beside its decisions (the visibility
 * API and the reservation webhook, when on): otherwise a Deployment reported Ready while {@code
 * kubectl octomy} still failed and the first creates missed the webhook.
 */
public final class ControllerReadiness {

  private final boolean leaderElection;
  private final String identity;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicReference<String> leader = new AtomicReference<>();
  private volatile BooleanSupplier answering = () -> true;

  ControllerReadiness(boolean leaderElection, String identity) {
    this.leaderElection = leaderElection;
    this.identity = identity;
  }

  /** The operator has started (caches syncing, the elector trying for the Lease). */
  void started() {
    started.set(true);
  }

  /** The Lease's holder as the elector last saw it. */
  void leaderIs(String holder) {
    leader.set(holder);
  }

  /**
   * While this replica decides, it is ready only when {@code answering} says so too (its visibility
   * API and webhook are published and reached).
   */
  public void requireWhileDeciding(BooleanSupplier answering) {
    this.answering = answering;
  }

  /** Null when ready, else why not (the body of a 503 from /readyz). */
  public String notReadyBecause() {
    if (!started.get()) {
      return "caches not synced yet";
    }
    if (leaderElection) {
      String holder = leader.get();
      if (holder == null || holder.isBlank()) {
        return "no replica holds the Lease yet";
      }
      if (!holder.equals(identity)) {
        return null;
      }
    }
    return answering.getAsBoolean()
        ? null
        : "deciding, but the visibility API and webhook are not published and reached yet";
  }
}
