package io.octomy.batch.admission;

import java.util.List;

/**
 * What a WaitingForCapacity message says of the node with the most free of a resource: "(name,
 * mode; what is allocated above the offer; the runs it waits for)". Kept per node and resource for
 * others' work until the node's allocation changes, since in the tail of a pass job after job waits
 * for the same most-free nodes; the text is the same as written afresh.
 */
final class MostFreeNotes {

  private final NodePool pool;
  private final int r;
  private final String[] notes;

  /** Per node and resource: the node's {@link NodePool#nodeVersion} when its note was written. */
  private final long[] writtenAt;

  MostFreeNotes(NodePool pool) {
    this.pool = pool;
    this.r = pool.resourceCount();
    this.notes = new String[pool.size() * r];
    this.writtenAt = new long[notes.length];
  }

  /** The note of the node's resource for this job. */
  String note(int node, PreparedJob job, int resource) {
    if (node == job.origin) {
      return write(node, job, resource); // ownMode's offer: not kept
    }
    int at = node * r + resource;
    long version = pool.nodeVersion(node);
    if (notes[at] == null || writtenAt[at] != version) {
      notes[at] = write(node, job, resource);
      writtenAt[at] = version;
    }
    return notes[at];
  }

  private String write(int node, PreparedJob job, int resource) {
    long offer = pool.offerFor(node, job, resource);
    long allocated = pool.allocated(node, resource);
    List<String> runs = pool.strayRuns(node);
    return pool.name(node)
        + ", "
        + pool.modeFor(node, job)
        + (allocated > offer ? "; " + allocated + " allocated is above its offer of " + offer : "")
        + (runs.isEmpty()
            ? ""
            : "; full until its agent reports "
                + String.join(", ", runs)
                + " stopped, "
                + (runs.size() == 1 ? "a run whose job is gone" : "runs whose jobs are gone"));
  }
}
