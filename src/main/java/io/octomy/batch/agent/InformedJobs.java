package io.octomy.batch.agent;

import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.Indexer;
import io.octomy.batch.api.BatchJob;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The BatchJobs the agent's informer holds, looked up rather than walked: the jobs placed on a node
 * through an informer index on {@code status.node}, and one job by namespace and name. A tick then
 * costs what this node holds, not what the cluster holds (walking every job on every change was a
 * sixth of a standalone server's work while jobs were created).
 */
final class InformedJobs {

  /** The informer index of jobs by {@code status.node}; jobs not placed are not indexed. */
  static final String BY_NODE = "batch.octomy.io/status.node";

  private final Function<String, List<BatchJob>> byNode;
  private final Function<String, BatchJob> byKey;

  private InformedJobs(Function<String, List<BatchJob>> byNode, Function<String, BatchJob> byKey) {
    this.byNode = byNode;
    this.byKey = byKey;
  }

  /** The indexers an informer needs for {@link #of(Indexer)}. */
  static Map<String, Function<BatchJob, List<String>>> indexers() {
    return Map.of(
        BY_NODE,
        job -> {
          String node = job.getStatus() == null ? null : job.getStatus().getNode();
          return node == null ? List.of() : List.of(node);
        });
  }

  /** Backed by an informer's cache built with {@link #indexers()}. */
  static InformedJobs of(Indexer<BatchJob> cache) {
    return new InformedJobs(node -> cache.byIndex(BY_NODE, node), cache::getByKey);
  }

  /** Over a plain collection (tests). */
  static InformedJobs of(Collection<BatchJob> jobs) {
    Map<String, BatchJob> byKey = new HashMap<>();
    jobs.forEach(j -> byKey.put(Cache.metaNamespaceKeyFunc(j), j));
    return new InformedJobs(
        node -> jobs.stream().filter(j -> NodeAllocation.placedOn(j, node)).toList(), byKey::get);
  }

  /** Every job whose {@code status.node} is {@code nodeName}, whatever its phase. */
  List<BatchJob> placedOn(String nodeName) {
    return byNode.apply(nodeName);
  }

  /** The job a run belongs to: same namespace and name, and the same uid; else null. */
  BatchJob jobOf(RunKey key) {
    BatchJob job = byKey.apply(key.namespace() + "/" + key.name());
    return job != null && Objects.equals(job.getMetadata().getUid(), key.uid()) ? job : null;
  }
}
