package io.octomy.batch.admission;

import java.util.Arrays;

/**
 * The positive requests of a job as a value (resource ids and quantities), so that jobs asking for
 * exactly the same amounts share what the node pool has learnt about them in this pass.
 */
final class RequestShape {

  private final int[] resourceIds;
  private final long[] quantities;
  private final int hash;

  RequestShape(int[] resourceIds, long[] quantities) {
    this.resourceIds = resourceIds;
    this.quantities = quantities;
    this.hash = 31 * Arrays.hashCode(resourceIds) + Arrays.hashCode(quantities);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RequestShape s
        && hash == s.hash
        && Arrays.equals(resourceIds, s.resourceIds)
        && Arrays.equals(quantities, s.quantities);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
