/**
 * Pure drift math: over-limit detection ({@link io.octomy.batch.controller.drift.OverLimit}) and
 * the per-type record of declared versus used resources ({@link
 * io.octomy.batch.controller.drift.DriftFolder}, {@link
 * io.octomy.batch.controller.drift.DriftRecord}), stored as {@code BatchJobProfile.status}. No
 * Kubernetes client types here; the controller converts with {@code toMap}/{@code fromMap}.
 */
package io.octomy.batch.controller.drift;
