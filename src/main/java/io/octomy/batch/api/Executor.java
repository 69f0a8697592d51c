package io.octomy.batch.api;

/** How a node runs admitted jobs. */
public enum Executor {
  /** A Kubernetes node: the controller creates one Pod per admitted job, bound to the node. */
  Pod,
  /** A machine whose agent runs the job's first container as a local process. */
  Process
}
