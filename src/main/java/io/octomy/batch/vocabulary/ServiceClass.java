package io.octomy.batch.vocabulary;

import java.util.Map;

/**
 * The service class of a job, derived from what it declared and never set by anyone.
 *
 * <p>Unlike Kubernetes pod QoS, a missing request is never defaulted from its limit, and extended
 * (domain-qualified) resources count like any other.
 */
public enum ServiceClass {
  /**
   * Every resource has a request equal to its limit (same names on both sides), and there is at
   * least one request.
   */
  Guaranteed,
  /** Something is declared, but not in the Guaranteed shape. */
  Burstable,
  /** Nothing is declared: no requests and no limits. */
  BestEffort;

  /**
   * Derives the class. {@code null} and empty maps mean the same: nothing declared.
   *
   * @param requests resource name to requested quantity, may be null
   * @param limits resource name to limit, may be null
   */
  public static ServiceClass of(Map<String, Long> requests, Map<String, Long> limits) {
    boolean noRequests = requests == null || requests.isEmpty();
    boolean noLimits = limits == null || limits.isEmpty();
    if (noRequests && noLimits) {
      return BestEffort;
    }
    if (!noRequests
        && !noLimits
        && requests.keySet().equals(limits.keySet())
        && requests.entrySet().stream()
            .allMatch(e -> e.getValue() != null && e.getValue().equals(limits.get(e.getKey())))) {
      return Guaranteed;
    }
    return Burstable;
  }
}
