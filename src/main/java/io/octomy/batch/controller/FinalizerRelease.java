package io.octomy.batch.controller;

import io.octomy.batch.vocabulary.Finalizers;

/**
 * When the controller removes its finalizer ({@link Finalizers#RESERVATION}) from a job that
 * finished (Succeeded or Failed). A job being deleted while it holds nothing loses it at the next
 * pass either way.
 */
public enum FinalizerRelease {
  /**
   * As the job finishes, in the pass that reads its outcome: a finished job can then be deleted
   * with the controller stopped or uninstalled. For a cluster, where the controller is a Deployment
   * of its own that people scale to zero and uninstall.
   */
  AT_FINISH,
  /**
   * Only once the job is deleted: a finished job keeps it, and the controller's next pass removes
   * it when someone deletes the job. For standalone mode, where the server and the controller are
   * one process, so nothing can delete a job while the controller is away, and the server puts the
   * finalizer on every job at its create: a job's whole life is then two controller writes (its
   * admission and its outcome) where a release at finish would add a third.
   */
  AT_DELETE
}
