package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.PriorityPolicy;
import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ServiceClass;
import java.time.Duration;
import java.time.Instant;

/** Effective priority (class base plus capped aging) and the starving test. */
final class Priorities {

  private Priorities() {}

  /** The class base from the policy. */
  static long base(PriorityPolicy policy, ServiceClass serviceClass) {
    return switch (serviceClass) {
      case Guaranteed -> policy.guaranteed();
      case Burstable -> policy.burstable();
      case BestEffort -> policy.bestEffort();
    };
  }

  /**
   * base + min(agingCeiling, agingPerMinute x whole minutes waited). A job queued "in the future"
   * (clock skew) has waited zero minutes. The product is capped before it is formed, so a long wait
   * cannot overflow.
   */
  static long effective(
      PriorityPolicy policy, ServiceClass serviceClass, Instant queuedAt, Instant now) {
    long minutes = Math.max(0, Duration.between(queuedAt, now).toMinutes());
    long perMinute = Math.max(0, policy.agingPerMinute());
    long ceiling = Math.max(0, policy.agingCeiling());
    long aging;
    if (perMinute == 0) {
      aging = 0;
    } else if (minutes >= ceiling / perMinute + 1) {
      aging = ceiling;
    } else {
      aging = Math.min(ceiling, minutes * perMinute);
    }
    // Both parts are bounded by the policy; saturating all the same, so no pass can throw.
    return Quantities.add(base(policy, serviceClass), aging);
  }

  /** Starving: waited strictly longer than {@code starvationAfter}. */
  static boolean starving(PriorityPolicy policy, Instant queuedAt, Instant now) {
    return Duration.between(queuedAt, now).compareTo(policy.starvationAfter()) > 0;
  }
}
