package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.AdmissionRecord;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Admissions decided but not yet seen in the informer cache (Kueue's assume/forget). The next pass
 * counts them as admitted, so it cannot book the same capacity, lock, group slot or budget twice
 * while a status write is in flight. Forgotten when the cache shows the write, when the write
 * fails, or when the job is gone.
 */
public final class AssumedAdmissions {

  /**
   * An assumed admission: the node, the uid so a re-created job of the same name is not confused
   * with it, and what it holds (the record its status write carries).
   */
  public record Assumed(String node, String uid, AdmissionRecord record) {}

  private final Map<JobKey, Assumed> assumed = new ConcurrentHashMap<>();

  public void assume(JobKey job, String node, String uid, AdmissionRecord record) {
    assumed.put(job, new Assumed(node, uid, record));
  }

  public void forget(JobKey job) {
    assumed.remove(job);
  }

  /** The assumed admission of a job with this uid, or null. */
  public Assumed get(JobKey job, String uid) {
    Assumed a = assumed.get(job);
    return a != null && a.uid().equals(uid) ? a : null;
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
