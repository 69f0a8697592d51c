package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import java.util.Collection;
import java.util.List;

/**
 * {@link ClusterView} over JOSDK's informer caches: the primary BatchJob cache, nodes and job Pods.
 */
public final class CacheView implements ClusterView {

  private volatile IndexerResourceCache<BatchJob> jobs;
  private volatile InformerEventSource<BatchNode, BatchJob> nodes;
  private volatile InformerEventSource<Pod, BatchJob> pods;
  private volatile InformerEventSource<BatchQueue, BatchJob> queues;
  private volatile InformerEventSource<Namespace, BatchJob> namespaces;

  void attach(
      IndexerResourceCache<BatchJob> jobs,
      InformerEventSource<BatchNode, BatchJob> nodes,
      InformerEventSource<Pod, BatchJob> pods) {
    this.jobs = jobs;
    this.nodes = nodes;
    this.pods = pods;
  }

  void attachQueues(
      InformerEventSource<BatchQueue, BatchJob> queues,
      InformerEventSource<Namespace, BatchJob> namespaces) {
    this.queues = queues;
    this.namespaces = namespaces;
  }

  @Override
  public Collection<BatchQueue> queues() {
    return queues == null ? List.of() : queues.list().toList();
  }

  @Override
  public Collection<Namespace> namespaces() {
    return namespaces == null ? List.of() : namespaces.list().toList();
  }

  @Override
  public Collection<BatchJob> jobs() {
    return jobs == null ? List.of() : jobs.list().toList();
  }

  @Override
  public Collection<BatchNode> nodes() {
    return nodes == null ? List.of() : nodes.list().toList();
  }

  @Override
  public Collection<Pod> jobPods() {
    return pods == null ? List.of() : pods.list().toList();
  }
}
