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
   * Derives the class. {@code null} and empty maps mean the same: nothing declared. A quantity of 0
   * (or a negative one, which is invalid anyway) counts as not declared, as in Kubernetes' pod QoS:
   * {@code requests: {example.com/x: 0}} with an equal limit declares nothing and is BestEffort,
   * not Guaranteed.
   *
   * @param requests resource name to requested quantity, may be null
   * @param limits resource name to limit, may be null
   */
  public static ServiceClass of(Map<String, Long> requests, Map<String, Long> limits) {
    // Counted in place rather than by building the two maps of positive entries: the admission
    // pass derives the class of every queued job on every pass.
    int declaredRequests = declaredCount(requests);
    int declaredLimits = declaredCount(limits);
    if (declaredRequests == 0 && declaredLimits == 0) {
      return BestEffort;
    }
    if (declaredRequests == 0 || declaredRequests != declaredLimits) {
      return Burstable;
    }
    for (Map.Entry<String, Long> request : requests.entrySet()) {
      Long q = request.getValue();
      if (declared(q) && !q.equals(limits.get(request.getKey()))) {
        return Burstable;
      }
    }
    return Guaranteed;
  }

  /** How many entries are positive: what a job really declares. */
  private static int declaredCount(Map<String, Long> quantities) {
    if (quantities == null) {
      return 0;
    }
    int count = 0;
    for (Long q : quantities.values()) {
      if (declared(q)) {
        count++;
      }
    }
    return count;
  }

  private static boolean declared(Long quantity) {
    return quantity != null && quantity > 0;
  }
}
