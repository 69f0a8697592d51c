package io.octomy.batch.vocabulary;

/**
 * Label and annotation keys the controller puts on the objects it creates (never on user objects).
 */
public final class Labels {
  /** On a job's Pod: the BatchJob's name. */
  public static final String JOB = "batch.octomy.io/job";

  /** On a job's Pod: the BatchJob's uid, so a re-created job of the same name gets its own Pod. */
  public static final String JOB_UID = "batch.octomy.io/job-uid";

  /** On a retried job's Pod: the run's number ({@code status.run}), absent on the first run. */
  public static final String RUN = "batch.octomy.io/run";

  /**
   * On a gang's Pod: the replica's index, from 0 (also in OCTOMY_REPLICA_INDEX); absent on the Pod
   * of a job of one replica, which is replica 0.
   */
  public static final String REPLICA = "batch.octomy.io/replica";

  /** On an array's item: the name of the array job it belongs to. */
  public static final String ARRAY = "batch.octomy.io/array";

  /** On an array's item: its index, from 0 (also in OCTOMY_ARRAY_INDEX). */
  public static final String ARRAY_INDEX = "batch.octomy.io/array-index";

  /** The component name used for Events and the Lease. */
  public static final String COMPONENT = "octomy-batch-controller";

  private Labels() {}
}
