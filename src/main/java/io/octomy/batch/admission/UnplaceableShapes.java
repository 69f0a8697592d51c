package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Request shapes that fit no node for the rest of a pass (allocation only grows within a pass), and
 * so do the shapes that ask for at least as much of each of their resources: a node that held the
 * larger would hold the smaller. The shapes found are kept exactly, and the smallest of them (none
 * covering another) up to {@link #MOST_KEPT} for the "at least as much" answer, which spares the
 * free-space tree most of the jobs that fit nowhere once the cluster has filled.
 */
final class UnplaceableShapes {

  /** Smallest shapes kept: each question looks at all of them. */
  private static final int MOST_KEPT = 32;

  private final Set<RequestShape> found = new HashSet<>();
  private final List<RequestShape> smallest = new ArrayList<>();

  void add(RequestShape shape) {
    found.add(shape);
    smallest.removeIf(kept -> kept.coversAll(shape));
    if (smallest.size() < MOST_KEPT) {
      smallest.add(shape);
    }
  }

  /** True when the shape, or one it covers, was found to fit nowhere. */
  boolean fitsNowhere(RequestShape shape) {
    for (RequestShape kept : smallest) {
      if (shape.coversAll(kept)) {
        return true;
      }
    }
    return found.contains(shape);
  }

  boolean isEmpty() {
    return found.isEmpty();
  }

  void clear() {
    found.clear();
    smallest.clear();
  }
}
