package io.octomy.batch.admission;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The jobs the forecast saw held for a starving job, each remembered with the hold it was held
 * under and its namespace's change count at that time. At a later pass such a job is decided again
 * only when, at its turn, something that held it may have changed: a different hold (or none yet),
 * an admission or end in its namespace (locks, group slots and budget it might share with the
 * starving job), or room on a node freed in this pass that is not the held one. Otherwise it would
 * be held again, and deciding it again would cost a pass's worth of work for nothing.
 */
final class HeldJobs {

  /** The hold a job was held under: the starving job and the node kept for it. */
  record Hold(int starvingJob, int node) {}

  /** Per class, the positions ({@link WaitingRoom#position}) of the held jobs. */
  private final BitSet[] byClass;

  private final Hold[] heldUnder;
  private final long[] namespaceVersion;

  /** Per class, the position from which this pass looks for the next held job. */
  private final int[] cursor;

  private final WaitingRoom room;

  HeldJobs(int jobs, WaitingRoom room) {
    this.room = room;
    this.heldUnder = new Hold[jobs];
    this.namespaceVersion = new long[jobs];
    this.cursor = new int[room.classes()];
    this.byClass = new BitSet[room.classes()];
    for (int c = 0; c < room.classes(); c++) {
      byClass[c] = new BitSet(room.size(c));
    }
  }

  boolean isEmpty() {
    for (BitSet held : byClass) {
      if (!held.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  void hold(PreparedJob job, Hold under, long version) {
    heldUnder[job.index] = under;
    namespaceVersion[job.index] = version;
    byClass[room.classOf(job)].set(room.position(job));
  }

  /** Starts a pass: every held job will come up once, in class order. */
  void startPass() {
    Arrays.fill(cursor, 0);
  }

  /** The next held job of a class not yet looked at in this pass, or null. */
  PreparedJob next(int serviceClass) {
    return room.member(serviceClass, byClass[serviceClass].nextSetBit(cursor[serviceClass]));
  }

  /** The job came up at its turn and stays held: it is passed over for the rest of the pass. */
  void passOver(PreparedJob job) {
    cursor[room.classOf(job)] = room.position(job) + 1;
  }

  /** The job is decided again: it leaves the held jobs. */
  void release(PreparedJob job) {
    byClass[room.classOf(job)].clear(room.position(job));
    heldUnder[job.index] = null;
  }

  Hold heldUnder(PreparedJob job) {
    return heldUnder[job.index];
  }

  long namespaceVersion(PreparedJob job) {
    return namespaceVersion[job.index];
  }
}
