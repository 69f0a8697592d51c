package io.octomy.batch.admission;

import java.util.List;
import java.util.Objects;

/**
 * A pass's result and what it leaves for the next pass ({@link AdmissionPass#decide(Snapshot,
 * PassMemory)}).
 *
 * @param result the decisions, the same as a pass without a memory gives
 * @param memory for the next pass
 * @param queues how each BatchQueue of the snapshot stands after the pass, by name
 */
public record RememberedPass(
    AdmissionResult result, PassMemory memory, List<QueueStanding> queues) {

  public RememberedPass {
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(memory, "memory");
    queues = List.copyOf(queues);
  }
}
