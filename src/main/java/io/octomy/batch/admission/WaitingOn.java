package io.octomy.batch.admission;

import java.util.Objects;

/**
 * One thing a waiting job waits for, written to {@code status.waitingOn}. Every job named here is
 * in the waiting job's own namespace (locks, groups and dependencies are all namespace-scoped).
 *
 * <ul>
 *   <li>WaitingForLock: {@code key} is the lock key, {@code job} the job holding it.
 *   <li>WaitingForGroup: {@code key} is the group name, {@code job} a job holding a slot.
 *   <li>WaitingForDependency: {@code key} is {@code "after"}, {@code job} the dependency that has
 *       not succeeded yet (or does not exist yet).
 * </ul>
 */
public record WaitingOn(String key, String job) {

  /** The key used for dependency entries. */
  public static final String AFTER = "after";

  public WaitingOn {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(job, "job");
  }
}
