package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * When each BatchJob of one namespace was first seen by a watch, first seen decided (a status
 * reason), first seen finished, and seen deleted: {@code System.nanoTime()} on arrival, as {@code
 * kubectl get bj -w} would see them. Also counts status changes of jobs that were already decided
 * and still Queued (rewrites of waiting jobs).
 */
final class JobTimes implements AutoCloseable {

  private final String namespace;
  private final SharedIndexInformer<BatchJob> informer;
  private final Map<String, Long> added = new ConcurrentHashMap<>();
  private final Map<String, Long> decided = new ConcurrentHashMap<>();
  private final Map<String, Long> finished = new ConcurrentHashMap<>();
  private final Map<String, Long> deleted = new ConcurrentHashMap<>();
  private final LongAdder waitingRewrites = new LongAdder();

  JobTimes(KubernetesClient client, String namespace) {
    this.namespace = namespace;
    informer =
        client
            .resources(BatchJob.class)
            .inNamespace(namespace)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(BatchJob j) {
                    long now = System.nanoTime();
                    added.putIfAbsent(name(j), now);
                    seen(null, j, now);
                  }

                  @Override
                  public void onUpdate(BatchJob before, BatchJob after) {
                    seen(before, after, System.nanoTime());
                  }

                  @Override
                  public void onDelete(BatchJob j, boolean unknown) {
                    deleted.putIfAbsent(name(j), System.nanoTime());
                  }
                });
  }

  private static String name(BatchJob j) {
    return j.getMetadata().getName();
  }

  private void seen(BatchJob before, BatchJob after, long now) {
    BatchJobStatus s = after.getStatus();
    if (s == null || s.getReason() == null) {
      return;
    }
    if (decided.putIfAbsent(name(after), now) != null) {
      BatchJobStatus old = before == null ? null : before.getStatus();
      if (old != null && old.getPhase() == JobPhase.Queued && s.getPhase() == JobPhase.Queued) {
        waitingRewrites.increment();
      }
    }
    if (s.getPhase() != null && s.getPhase().isFinished()) {
      finished.putIfAbsent(name(after), now);
    }
  }

  Long added(String name) {
    return added.get(name);
  }

  Long decided(String name) {
    return decided.get(name);
  }

  Long finished(String name) {
    return finished.get(name);
  }

  /** Jobs seen decided, in all. */
  long decidedTotal() {
    return decided.size();
  }

  /** Jobs among {@code names} seen decided. */
  long decidedCount(Collection<String> names) {
    return names.stream().filter(decided::containsKey).count();
  }

  long finishedCount(Collection<String> names) {
    return names.stream().filter(finished::containsKey).count();
  }

  long deletedCount(Collection<String> names) {
    return names.stream().filter(deleted::containsKey).count();
  }

  /** Jobs among {@code names} that finished in phase Succeeded, from the watch's cache. */
  long succeededCount(Collection<String> names) {
    return names.stream()
        .map(n -> informer.getStore().getByKey(namespace + "/" + n))
        .filter(
            j ->
                j != null
                    && j.getStatus() != null
                    && j.getStatus().getPhase() == JobPhase.Succeeded)
        .count();
  }

  long waitingRewrites() {
    return waitingRewrites.sum();
  }

  @Override
  public void close() {
    informer.close();
  }
}
