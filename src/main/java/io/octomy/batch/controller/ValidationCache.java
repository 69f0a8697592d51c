package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.SpecValidator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validates a job's spec once per version of the job: a pass over 10,000 jobs must not re-check
 * them all every time.
 *
 * <p>Kept by uid with the resourceVersion it was found at, which every API server changes on every
 * change of the object (not every one bumps metadata.generation on a spec change): an unchanged job
 * is answered without reading its spec at all, where hashing the spec (its whole Pod template) on
 * every pass cost as much as validating it.
 */
final class ValidationCache {

  private record Validated(String resourceVersion, List<String> problems) {}

  private final Map<String, Validated> byUid = new ConcurrentHashMap<>();

  List<String> problems(BatchJob job) {
    String uid = job.getMetadata().getUid();
    String version = job.getMetadata().getResourceVersion();
    if (uid == null || version == null) {
      return SpecValidator.problems(job.getSpec());
    }
    Validated last = byUid.get(uid);
    if (last != null && last.resourceVersion().equals(version)) {
      return last.problems();
    }
    List<String> problems = List.copyOf(SpecValidator.problems(job.getSpec()));
    byUid.put(uid, new Validated(version, problems));
    return problems;
  }

  /** Drops the entries of jobs that are gone. */
  void retain(Set<String> liveUids) {
    byUid.keySet().retainAll(liveUids);
  }
}
