package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.controller.drift.DriftRecord;
import io.octomy.batch.controller.drift.FinishedRun;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What the admission loop writes. Behind an interface so tests can inject conflicts and failures.
 */
public interface ClusterWriter {

  /** How a status write ended. */
  enum Result {
    WRITTEN,
    CONFLICT,
    GONE,
    FAILED
  }

  /**
   * Replaces the job's status, conditional on the resourceVersion the job was read at, so a
   * decision taken on stale data is refused (409) instead of landing.
   */
  Result writeStatus(BatchJob job, BatchJobStatus status);

  /**
   * How a write of a job's finalizers ended, with the job's new resourceVersion once it landed: a
   * status write that follows it must be conditional on that version.
   */
  record FinalizersWritten(Result result, String resourceVersion) {}

  /**
   * Sets the job's {@code metadata.finalizers}, conditional on the resourceVersion the job was read
   * at, so a finalizer someone else added meanwhile is never lost (409 instead). A refusal because
   * the job is being deleted (no finalizer may be added then) counts as a conflict: decide again.
   */
  FinalizersWritten writeFinalizers(BatchJob job, List<String> finalizers);

  /**
   * Replaces a BatchNode's status conditions, conditional on the resourceVersion the node was read
   * at: if its agent reported meanwhile, the write is refused (409) and the report stands.
   */
  Result writeNodeConditions(BatchNode node, List<Condition> conditions);

  /**
   * Replaces a BatchQueue's status, conditional on the resourceVersion the queue was read at: a
   * refused write is tried again by a later pass, from fresh data.
   */
  Result writeQueueStatus(BatchQueue queue, BatchQueueStatus status);

  /**
   * What reading one job from the server (past the cache) found: the job, that it is gone, or no
   * answer.
   */
  sealed interface ReadBack {
    record Found(BatchJob job) implements ReadBack {}

    record Gone() implements ReadBack {}

    record NoAnswer(String why) implements ReadBack {}
  }

  /**
   * Reads the job from the server, not the cache: how the loop learns whether a status write that
   * ended without an answer landed.
   */
  ReadBack readJob(String namespace, String name);

  /**
   * Deletes a finished job on its uid (a precondition: a job re-created under the same name is
   * refused with 409, {@link Result#CONFLICT}), its Pods left to follow. {@link Result#GONE} when
   * it is gone already.
   */
  Result deleteJob(BatchJob job);

  /**
   * Reads the namespace's record of jobs deleted after they succeeded ({@link CleanedUpJobs}) from
   * the server: its data (empty when there is none yet), or null when there was no answer.
   */
  Map<String, String> readCleanedUp(String namespace);

  /**
   * Changes the namespace's record of jobs deleted after they succeeded, creating it when missing,
   * conditional on the version read (a refused write is read and tried again): the data written, or
   * null when it did not land.
   */
  Map<String, String> writeCleanedUp(String namespace, UnaryOperator<Map<String, String>> change);

  /**
   * Creates an array job's item; one that already exists counts as created (an earlier pass or
   * controller sent it). False on failure: a later pass sends it again.
   */
  boolean createJob(BatchJob item);

  /** Creates the Pod; one that already exists counts as created. False on failure. */
  boolean createPod(Pod pod);

  /**
   * Deletes the Pod of a job being deleted (one already gone counts as deleted). False on failure;
   * the next pass asks again while the Pod is in the cache.
   */
  boolean deletePod(Pod pod);

  /**
   * Records a Kubernetes Event on the job, standing for {@code count} Events of its kind (more than
   * one when similar Events were folded together); failures are logged and otherwise ignored.
   */
  void recordEvent(BatchJob job, JobEvent event, int count);

  /** How folding a finished run into its type's profile ended. */
  enum FoldOutcome {
    /** The run is in the profile (or was already). */
    FOLDED,
    /**
     * The server refuses the write and will again: the profile kind is not served (its CRD was
     * deleted), the controller may not write it, or the server finds it invalid.
     */
    REFUSED,
    /** No answer, or an error that may pass: the fold is tried again on the next pass. */
    UNANSWERED
  }

  /**
   * A fold's outcome; {@code detail} says what the server answered when it was not {@link
   * FoldOutcome#FOLDED}.
   */
  record DriftFold(FoldOutcome outcome, String detail) {
    static final DriftFold DONE = new DriftFold(FoldOutcome.FOLDED, "");
  }

  /** Folds a finished run into the BatchJobProfile named after its type (idempotent). */
  DriftFold foldDrift(String namespace, FinishedRun run, UnaryOperator<DriftRecord> fold);
}
