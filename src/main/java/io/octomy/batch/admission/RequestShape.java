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

  /**
   * True when this shape asks for at least as much as {@code other} of every resource {@code other}
   * asks for (it may ask for more resources besides): every node that holds this shape holds the
   * other.
   */
  boolean coversAll(RequestShape other) {
    int i = 0;
    for (int k = 0; k < other.resourceIds.length; k++) {
      int id = other.resourceIds[k];
      while (i < resourceIds.length && resourceIds[i] < id) {
        i++;
      }
      if (i == resourceIds.length || resourceIds[i] != id || quantities[i] < other.quantities[k]) {
        return false;
      }
    }
    return true;
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
