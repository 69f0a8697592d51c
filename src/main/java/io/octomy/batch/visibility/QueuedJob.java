package io.octomy.batch.visibility;

import java.time.Instant;
import java.util.Objects;

/**
 * A Queued job as the next pass will consider it.
 *
 * @param position 1-based place in the whole queue (the pass order)
 * @param namespacePosition 1-based place among the Queued jobs of its namespace
 * @param effectivePriority class base plus aging, as of now
 * @param reason the reason the next pass gives it ({@code Admitted} when it will be admitted)
 * @param message the next pass's message for it
 * @param expectedStart when it is expected to be admitted; null when no predicted end of a running
 *     job makes room for it (then {@code startBasis} says why)
 * @param expectedIn how far off {@code expectedStart} is from the moment the answer is about, as
 *     the start basis words it ("now", "7m", "1h5m"); null with {@code expectedStart}, so that a
 *     client shows the same span as the sentence beside it whatever its own clock says
 * @param expectedNode where it is expected to go; null with {@code expectedStart}
 * @param expectedEnd when it is expected to end if it starts at {@code expectedStart}, from its
 *     type's recorded run times as the forecast reckons them; null with {@code expectedStart}
 * @param startBasis how the expected start was reached and how sure it is, as a sentence
 */
public record QueuedJob(
    String namespace,
    String name,
    int position,
    int namespacePosition,
    long effectivePriority,
    String serviceClass,
    String reason,
    String message,
    Instant expectedStart,
    String expectedIn,
    String expectedNode,
    Instant expectedEnd,
    String startBasis) {
  public QueuedJob {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(startBasis, "startBasis");
  }
}
