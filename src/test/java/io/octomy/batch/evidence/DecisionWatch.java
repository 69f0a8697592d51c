package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Watches BatchJobs from the benchmark's side, as {@code kubectl get bj -w} would: when each job's
 * first decided status arrived (System.nanoTime), how many were admitted, and every later status
 * change of a waiting job, split into "the decision changed" and "only wording or priority".
 */
final class DecisionWatch implements AutoCloseable {

  private final SharedIndexInformer<BatchJob> informer;
  private final Map<String, Long> firstDecided = new ConcurrentHashMap<>();
  private final LongAdder admitted = new LongAdder();
  private final LongAdder waitingRewrites = new LongAdder();
  private final LongAdder waitingSameDecision = new LongAdder();
  private final List<String> samples = new CopyOnWriteArrayList<>();
  private final AtomicLong lastChangeNanos = new AtomicLong(System.nanoTime());

  DecisionWatch(KubernetesClient client) {
    informer =
        client
            .resources(BatchJob.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(BatchJob j) {
                    seen(null, j);
                  }

                  @Override
                  public void onUpdate(BatchJob before, BatchJob after) {
                    seen(before, after);
                  }

                  @Override
                  public void onDelete(BatchJob j, boolean unknown) {}
                });
  }

  static String key(BatchJob j) {
    return j.getMetadata().getNamespace() + "/" + j.getMetadata().getName();
  }

  private void seen(BatchJob before, BatchJob after) {
    long now = System.nanoTime();
    BatchJobStatus s = after.getStatus();
    if (s == null || s.getReason() == null) {
      return;
    }
    lastChangeNanos.set(now);
    if (firstDecided.putIfAbsent(key(after), now) == null) {
      if (s.getPhase() == JobPhase.Admitted) {
        admitted.increment();
      }
      return;
    }
    BatchJobStatus old = before == null ? null : before.getStatus();
    if (old != null && old.getPhase() == JobPhase.Queued && !Objects.equals(old, s)) {
      if (s.getPhase() == JobPhase.Admitted) {
        admitted.increment();
      }
      waitingRewrites.increment();
      if (sameDecision(old, s)) {
        waitingSameDecision.increment();
        if (samples.size() < 3) {
          samples.add(key(after) + ": " + diff(old, s));
        }
      }
    }
  }

  /** Same phase, reason, node and waitingOn: what a user acts on did not change. */
  static boolean sameDecision(BatchJobStatus a, BatchJobStatus b) {
    return a.getPhase() == b.getPhase()
        && Objects.equals(a.getReason(), b.getReason())
        && Objects.equals(a.getNode(), b.getNode())
        && Objects.equals(a.getWaitingOn(), b.getWaitingOn());
  }

  /**
   * What differed, field by field, in the first few same-decision rewrites (to show why they
   * happened).
   */
  List<String> sameDecisionSamples() {
    return samples;
  }

  private static String diff(BatchJobStatus a, BatchJobStatus b) {
    List<String> d = new ArrayList<>();
    if (!Objects.equals(a.getMessage(), b.getMessage())) {
      d.add("message '" + a.getMessage() + "' -> '" + b.getMessage() + "'");
    }
    if (!Objects.equals(a.getEffectivePriority(), b.getEffectivePriority())) {
      d.add("effectivePriority " + a.getEffectivePriority() + " -> " + b.getEffectivePriority());
    }
    if (!Objects.equals(a.getConditions(), b.getConditions())) {
      d.add("conditions " + a.getConditions() + " -> " + b.getConditions());
    }
    return d.isEmpty() ? "other fields" : String.join("; ", d);
  }

  int decided() {
    return firstDecided.size();
  }

  Long firstDecidedNanos(String key) {
    return firstDecided.get(key);
  }

  long admitted() {
    return admitted.sum();
  }

  long waitingRewrites() {
    return waitingRewrites.sum();
  }

  long waitingSameDecisionRewrites() {
    return waitingSameDecision.sum();
  }

  long nanosSinceLastChange() {
    return System.nanoTime() - lastChangeNanos.get();
  }

  /** Jobs whose current status is Queued (waiting), from the watch cache. */
  long waitingNow() {
    return informer.getStore().list().stream()
        .filter(j -> j.getStatus() != null && j.getStatus().getPhase() == JobPhase.Queued)
        .count();
  }

  Map<String, Long> reasonsNow() {
    Map<String, Long> out = new TreeMap<>();
    informer
        .getStore()
        .list()
        .forEach(
            j ->
                out.merge(
                    j.getStatus() == null || j.getStatus().getReason() == null
                        ? "(none)"
                        : j.getStatus().getReason(),
                    1L,
                    Long::sum));
    return out;
  }

  @Override
  public void close() {
    informer.close();
  }
}
