package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import java.util.Collection;

/** What the admission loop reads: the informer caches, never the API server. */
public interface ClusterView {

  Collection<BatchJob> jobs();

  Collection<BatchNode> nodes();

  /** The Pods the controller created for jobs (labelled with the job's uid). */
  Collection<Pod> jobPods();
}
