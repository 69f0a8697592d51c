package io.octomy.batch.vocabulary;

/** The condition types written in {@code status.conditions} of BatchJobs and BatchNodes. */
public final class ConditionTypes {

  /** On a BatchJob: True once admitted to a node. */
  public static final String ADMITTED = "Admitted";

  /** On a BatchJob: True while it has waited longer than {@code starvationAfter}. */
  public static final String STARVING = "Starving";

  /** On a BatchJob: True when a measured peak exceeded one of its limits. */
  public static final String OVER_LIMIT = "OverLimit";

  /** On a BatchJob: True when its spec changed after admission and the change was not applied. */
  public static final String SPEC_CHANGE_IGNORED = "SpecChangeIgnored";

  /**
   * On a BatchJob placed on a {@code Process} node: True while that node's BatchNode is missing;
   * its lastTransitionTime is when the controller first saw it missing, so the node-loss deadline
   * survives a restart of the controller.
   */
  public static final String NODE_MISSING = "NodeMissing";

  /**
   * On a BatchJob being deleted before its run ended: True while the agent of its {@code Process}
   * node, which must end the process before the job's place is freed, is not reporting; its message
   * says how to end the wait.
   */
  public static final String STOP_PENDING = "StopPending";

  /** On a BatchNode: True while its agent reports. */
  public static final String READY = "Ready";

  /** The status text of a condition that holds. */
  public static final String TRUE = "True";

  /** The status text of a condition that does not hold. */
  public static final String FALSE = "False";

  /** The status text of a condition nobody can currently tell. */
  public static final String UNKNOWN = "Unknown";

  private ConditionTypes() {}
}
