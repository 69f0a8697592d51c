package io.octomy.batch.vocabulary;

/**
 * The finalizer the controller puts on a BatchJob while it holds a place on a node, as Kueue's
 * {@code kueue.x-k8s.io/resource-in-use} does on a workload.
 *
 * <p>Without it, deleting a job removes the object at once: its reservation would be freed while
 * its process or Pod still runs, and a second job could be admitted into the same place. With it, a
 * deleted job stays (with {@code deletionTimestamp} set) and keeps counting until its work has
 * stopped; only then does the controller remove the finalizer and the object go.
 *
 * <ul>
 *   <li>Added just before the admission is written (the status subresource cannot carry metadata,
 *       so it is a write of its own on the job, conditional on the version the pass decided on; the
 *       admission is written only once it has landed, so no job is admitted without it). In
 *       standalone mode the embedded server puts it on every new job instead, owned by its own
 *       field manager, and an admission is then its status write alone.
 *   <li>Removed when the job holds nothing any more: it finished (Succeeded or Failed, which for a
 *       job being deleted means its agent reported its process stopped, its Pod is gone, or its
 *       BatchNode was deleted and not re-created within {@code nodeHeartbeatTimeout}), or it is
 *       being deleted while it holds nothing (Queued, Skipped, Rejected). In standalone mode a
 *       finished job keeps it until it is deleted: the controller runs in the server's process.
 * </ul>
 *
 * An uninstall takes it off every job first ({@link #UNINSTALL_GUARD}). With the controller stopped
 * before that, nothing removes it: {@code kubectl patch bj NAME --type=merge -p
 * '{"metadata":{"finalizers":null}}'} lets such a job go (make sure its work has stopped first).
 */
public final class Finalizers {

  /** This controller's finalizer on a BatchJob that holds a place. */
  public static final String RESERVATION = "batch.octomy.io/reservation-in-use";

  /**
   * The controller's finalizer on its own ServiceAccount, ClusterRole and ClusterRoleBinding: an
   * uninstall deletes them together with everything else, and without them the controller could no
   * longer take {@link #RESERVATION} off the jobs, which would then keep their CRD and namespace
   * Terminating. Seeing one of them deleted, the controller stops deciding, releases every job, and
   * then lets the three go.
   */
  public static final String UNINSTALL_GUARD = "batch.octomy.io/release-jobs-first";

  private Finalizers() {}
}
