package io.octomy.batch.admission;

import java.util.Objects;

/**
 * A pass's result and what it leaves for the next pass ({@link AdmissionPass#decide(Snapshot,
 * PassMemory)}).
 *
 * @param result the decisions, the same as a pass without a memory gives
 * @param memory for the next pass
 */
public record RememberedPass(AdmissionResult result, PassMemory memory) {

  public RememberedPass {
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(memory, "memory");
  }
}
