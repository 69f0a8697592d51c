package io.octomy.batch.agent;

/** Where a locally run job stands, as reported in {@code BatchNode.status.jobs[].phase}. */
public enum RunPhase {
  /** Started (or re-adopted) and not yet finished. */
  Running,
  /** Exited with code 0. */
  Succeeded,
  /** Exited with another code, was stopped, could not start, or its exit was lost. */
  Failed
}
