package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An array job ({@code spec.array}) that has not ended, as a forecast sees it: its items are named
 * {@code NAME-0} to {@code NAME-(count-1)}, at most {@code maxRunning} of them unfinished at once,
 * and those not created yet will be made from {@code item}. The pass itself never reads it: it
 * decides the items that exist, and sees the array job only as running ({@link #parentView}).
 *
 * @param namespace the array job's namespace
 * @param name the array job's name
 * @param count {@code spec.array.count}
 * @param maxRunning {@code spec.array.maxRunning}, or {@code count} when unset
 * @param createsItems whether items not created yet will be (not while the array job is held or
 *     being deleted)
 * @param item the view an item created now would have, under any name; null when every item exists
 * @param createdFrom when the items to come that have a free place are created: for an array job
 *     that exists, just after now (the controller's next pass creates them, so the next pass
 *     decides only jobs that exist); for a manifest being fitted, now
 */
public record ArrayShape(
    String namespace,
    String name,
    int count,
    int maxRunning,
    boolean createsItems,
    JobView item,
    Instant createdFrom) {

  public ArrayShape {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(createdFrom, "createdFrom");
    if (count < 1 || maxRunning < 1) {
      throw new IllegalArgumentException(
          "an array has at least one item and runs at least one: " + count + ", " + maxRunning);
    }
  }

  /** The same array with {@code template} as the view of an item made now. */
  public ArrayShape withItem(JobView template) {
    return new ArrayShape(namespace, name, count, maxRunning, createsItems, template, createdFrom);
  }

  /** This array job's key. */
  public JobKey key() {
    return new JobKey(namespace, name);
  }

  /** The key of item {@code index}. */
  public JobKey itemKey(int index) {
    return new JobKey(namespace, itemName(name, index));
  }

  /** The name of item {@code index} of the array job {@code parent}. */
  public static String itemName(String parent, int index) {
    return parent + "-" + index;
  }

  /**
   * An array job as the pass sees it: never Queued, so never decided, and holding nothing; Running
   * (or its own final phase) until it ends, so a job {@code after} it waits for the whole array.
   */
  public static JobView parentView(
      String namespace,
      String name,
      long generation,
      JobPhase phase,
      Instant queuedAt,
      List<String> problems) {
    return new JobView(
        namespace,
        name,
        generation,
        null,
        null,
        null,
        null,
        null,
        null,
        phase == JobPhase.Queued ? JobPhase.Running : phase,
        null,
        queuedAt,
        problems,
        false,
        null);
  }
}
