package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import java.util.Collection;
import java.util.List;

/** What the admission loop reads: the informer caches, never the API server. */
public interface ClusterView {

  Collection<BatchJob> jobs();

  Collection<BatchNode> nodes();

  /** The BatchQueues; none where the controller does not watch them. */
  default Collection<BatchQueue> queues() {
    return List.of();
  }

  /** The Namespaces, whose labels a queue's namespaceSelector is matched against. */
  default Collection<Namespace> namespaces() {
    return List.of();
  }

  /** The Pods the controller created for jobs (labelled with the job's uid). */
  Collection<Pod> jobPods();
}
