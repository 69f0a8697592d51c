package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.SpecValidator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validates a job's spec once per generation: a pass over 10,000 jobs must not re-check them all
 * every time.
 */
final class ValidationCache {

  // The spec's hash joins the key: not every API server bumps metadata.generation on a spec change.
  private record Key(String uid, Long generation, int specHash) {}

  private final Map<Key, List<String>> problems = new ConcurrentHashMap<>();

  List<String> problems(BatchJob job) {
    Key k =
        new Key(
            job.getMetadata().getUid(),
            job.getMetadata().getGeneration(),
            job.getSpec() == null ? 0 : job.getSpec().hashCode());
    if (k.uid() == null) {
      return SpecValidator.problems(job.getSpec());
    }
    return problems.computeIfAbsent(k, x -> List.copyOf(SpecValidator.problems(job.getSpec())));
  }

  /** Drops entries of jobs that are gone or have moved on to another generation. */
  void retain(Set<String> liveUids) {
    problems.keySet().removeIf(k -> !liveUids.contains(k.uid()));
  }
}
