package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A pass's cached jobs looked up by key, the map built at the first lookup. A pass looks jobs up
 * only for what it has in flight (admissions assumed or uncertain, writes whose echo is awaited);
 * between bursts there is none, and a map of every cached job built on every pass was a tenth of a
 * pass over a long queue. Not thread-safe: one pass's.
 */
final class JobsByKey {

  private final List<BatchJob> jobs;
  private Map<JobKey, BatchJob> byKey;

  JobsByKey(List<BatchJob> jobs) {
    this.jobs = jobs;
  }

  /** The cached job of {@code key}, or null. */
  BatchJob get(JobKey key) {
    if (byKey == null) {
      byKey = new HashMap<>(jobs.size() * 2);
      for (BatchJob j : jobs) {
        byKey.put(new JobKey(j.getMetadata().getNamespace(), j.getMetadata().getName()), j);
      }
    }
    return byKey.get(key);
  }

  /** How many jobs are cached. */
  int size() {
    return jobs.size();
  }
}
