package io.octomy.batch.api;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Sets conditions the Kubernetes way: one per type; {@code lastTransitionTime} moves only when the
 * status flips, so a reason or message update does not look like a new event.
 */
public final class Conditions {

  private Conditions() {}

  /** A copy of {@code existing} with condition {@code type} set; the input list is not changed. */
  public static List<Condition> set(
      List<Condition> existing,
      String type,
      boolean status,
      String reason,
      String message,
      Long observedGeneration,
      Instant now) {
    return set(
        existing,
        type,
        status ? ConditionTypes.TRUE : ConditionTypes.FALSE,
        reason,
        message,
        observedGeneration,
        now);
  }

  /**
   * As {@link #set(List, String, boolean, String, String, Long, Instant)}, for {@link
   * ConditionTypes#UNKNOWN} too.
   */
  public static List<Condition> set(
      List<Condition> existing,
      String type,
      String wanted,
      String reason,
      String message,
      Long observedGeneration,
      Instant now) {
    List<Condition> out = new ArrayList<>();
    boolean replaced = false;
    for (Condition c : existing == null ? List.<Condition>of() : existing) {
      if (!type.equals(c.getType())) {
        out.add(c);
        continue;
      }
      replaced = true;
      String transition =
          wanted.equals(c.getStatus()) && c.getLastTransitionTime() != null
              ? c.getLastTransitionTime()
              : Times.format(now);
      out.add(build(type, wanted, reason, message, observedGeneration, transition));
    }
    if (!replaced) {
      out.add(build(type, wanted, reason, message, observedGeneration, Times.format(now)));
    }
    return out;
  }

  /** The condition of a type, or null. */
  public static Condition find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  /** True when the condition of {@code type} has status True. */
  public static boolean isTrue(List<Condition> conditions, String type) {
    Condition c = find(conditions, type);
    return c != null && ConditionTypes.TRUE.equals(c.getStatus());
  }

  private static Condition build(
      String type, String status, String reason, String message, Long gen, String transition) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(gen)
        .withLastTransitionTime(transition)
        .build();
  }
}
