package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.AdmissionRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Admissions decided but not yet seen in the informer cache (Kueue's assume/forget). The next pass
 * counts them as admitted, so it cannot book the same capacity, lock, group slot or budget twice
 * while a status write is in flight. Forgotten when the cache shows the write, when the write is
 * known not to have landed (409, 404, or a read-back that shows the old version), or when the job
 * is gone. A write that timed out or got a server error may have landed: it stays assumed, marked
 * uncertain, until the server is read back or the cache moves past the version it was written on.
 */
public final class AssumedAdmissions {

  /**
   * An assumed admission: the node, the uid so a re-created job of the same name is not confused
   * with it, what it holds (the record its status write carries), and, once its write ended without
   * an answer, the resourceVersions the cache may show without telling whether it landed: the one
   * the write was conditional on and, when the controller's finalizer was added just before it, the
   * one that write replaced (empty while the write is in flight or landed); and a gang's node per
   * replica (empty for a single job), counted as its status will name them.
   */
  public record Assumed(
      String node,
      String uid,
      AdmissionRecord record,
      Set<String> uncertainOver,
      List<String> replicaNodes) {
    public Assumed {
      uncertainOver = Set.copyOf(uncertainOver);
      replicaNodes = List.copyOf(replicaNodes);
    }

    public boolean uncertain() {
      return !uncertainOver.isEmpty();
    }
  }

  private final Map<JobKey, Assumed> assumed = new ConcurrentHashMap<>();

  public void assume(JobKey job, String node, String uid, AdmissionRecord record) {
    assume(job, node, List.of(), uid, record);
  }

  /** A gang's admission: {@code replicaNodes} per replica in replica order, {@code node} first. */
  public void assume(
      JobKey job, String node, List<String> replicaNodes, String uid, AdmissionRecord record) {
    assumed.put(job, new Assumed(node, uid, record, Set.of(), replicaNodes));
  }

  /**
   * The admission's write ended without an answer (timeout, 5xx): it may have landed on top of the
   * last of {@code resourceVersions} (the earlier ones it replaced are ours too). It stays held
   * until {@link AdmissionReadBack} or the cache says which.
   */
  public void uncertain(JobKey job, Set<String> resourceVersions) {
    assumed.computeIfPresent(
        job,
        (k, a) -> new Assumed(a.node(), a.uid(), a.record(), resourceVersions, a.replicaNodes()));
  }

  /** A read-back showed the uncertain write landed: it is held as any write in flight. */
  public void settle(JobKey job) {
    assumed.computeIfPresent(
        job, (k, a) -> new Assumed(a.node(), a.uid(), a.record(), Set.of(), a.replicaNodes()));
  }

  public void forget(JobKey job) {
    assumed.remove(job);
  }

  /** The assumed admission of a job with this uid, or null. */
  public Assumed get(JobKey job, String uid) {
    if (assumed.isEmpty()) {
      return null; // most passes: without hashing the key (its texts are cold in a large queue)
    }
    Assumed a = assumed.get(job);
    return a != null && a.uid().equals(uid) ? a : null;
  }

  /** Every uncertain admission, for reading back. */
  public Map<JobKey, Assumed> uncertainOnes() {
    Map<JobKey, Assumed> out = new HashMap<>();
    assumed.forEach(
        (k, a) -> {
          if (a.uncertain()) {
            out.put(k, a);
          }
        });
    return out;
  }

  public int size() {
    return assumed.size();
  }

  /**
   * Forgets every entry whose job the cache no longer holds as Queued (write landed or job gone).
   */
  public void retainOnly(Predicate<JobKey> stillQueued) {
    assumed.keySet().removeIf(k -> !stillQueued.test(k));
  }
}
