package io.octomy.batch.admission;

import java.time.Duration;
import java.time.Instant;

/**
 * How long jobs run, as far as a forecast is concerned: supplied by the caller (learnt from
 * measured run times), so the forecast itself stays a pure function.
 */
public interface RunTimeModel {

  /**
   * When a job that holds a reservation in the snapshot (Admitted or Running) is expected to end. A
   * time before the snapshot's now counts as now.
   */
  Instant expectedEnd(JobView job);

  /** How long a job is expected to run once admitted; a zero or negative answer counts as 1 s. */
  Duration expectedRunTime(JobView job);
}
