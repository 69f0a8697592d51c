package io.octomy.batch.vocabulary;

import java.util.HashMap;
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
   * Derives the class. {@code null} and empty maps mean the same: nothing declared. A quantity of 0
   * (or a negative one, which is invalid anyway) counts as not declared, as in Kubernetes' pod QoS:
   * {@code requests: {example.com/x: 0}} with an equal limit declares nothing and is BestEffort,
   * not Guaranteed.
   *
   * @param requests resource name to requested quantity, may be null
   * @param limits resource name to limit, may be null
   */
  public static ServiceClass of(Map<String, Long> requests, Map<String, Long> limits) {
    Map<String, Long> r = declared(requests);
    Map<String, Long> l = declared(limits);
    if (r.isEmpty() && l.isEmpty()) {
      return BestEffort;
    }
    return !r.isEmpty() && r.equals(l) ? Guaranteed : Burstable;
  }

  /** The positive entries: what a job really declares. */
  private static Map<String, Long> declared(Map<String, Long> quantities) {
    if (quantities == null || quantities.isEmpty()) {
      return Map.of();
    }
    Map<String, Long> out = new HashMap<>();
    quantities.forEach(
        (name, q) -> {
          if (q != null && q > 0) {
            out.put(name, q);
          }
        });
    return out;
  }
}
