package io.octomy.batch.agent;

import io.octomy.batch.api.NodeJob;
import java.util.List;

/**
 * The executor-specific half of the agent: follows the BatchJobs placed on this node, measures them
 * and reports them. Called only from the agent's own thread, so implementations need no locking of
 * their own.
 */
interface JobTracker extends AutoCloseable {

  /**
   * Brings local work in line with the cluster's jobs.
   *
   * @param jobs the BatchJobs the agent's informer holds (all namespaces, all nodes), looked up by
   *     node and by name, so jobs that are gone can be told apart from jobs placed elsewhere
   * @return true when something reportable changed (a job started, was refused or dropped)
   */
  boolean reconcile(InformedJobs jobs);

  /**
   * True when the last {@link #reconcile} left jobs to start for the next one: the agent reports
   * what it started first, then reconciles again.
   */
  default boolean startsLeft() {
    return false;
  }

  /** Takes one usage reading of every running job. */
  void sample();

  /** The entries for {@code status.jobs}. */
  List<NodeJob> reports();

  /** Lets go of local resources; running work is left running. */
  @Override
  void close();
}
