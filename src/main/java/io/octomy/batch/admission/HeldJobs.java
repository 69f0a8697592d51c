package io.octomy.batch.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

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

  private final List<TreeSet<PreparedJob>> byClass = new ArrayList<>();
  private final Hold[] heldUnder;
  private final long[] namespaceVersion;
  private final PreparedJob[] cursor;
  private final WaitingRoom room;

  HeldJobs(int jobs, WaitingRoom room) {
    this.room = room;
    this.heldUnder = new Hold[jobs];
    this.namespaceVersion = new long[jobs];
    this.cursor = new PreparedJob[room.classes()];
    for (int c = 0; c < room.classes(); c++) {
      byClass.add(new TreeSet<>(WaitingRoom.CLASS_ORDER));
    }
  }

  boolean isEmpty() {
    return byClass.stream().allMatch(TreeSet::isEmpty);
  }

  void hold(PreparedJob job, Hold under, long version) {
    heldUnder[job.index] = under;
    namespaceVersion[job.index] = version;
    byClass.get(room.classOf(job)).add(job);
  }

  /** Starts a pass: every held job will come up once, in class order. */
  void startPass() {
    Arrays.fill(cursor, null);
  }

  /** The next held job of a class not yet looked at in this pass, or null. */
  PreparedJob next(int serviceClass) {
    TreeSet<PreparedJob> set = byClass.get(serviceClass);
    PreparedJob at = cursor[serviceClass];
    return at == null ? (set.isEmpty() ? null : set.first()) : set.higher(at);
  }

  /** The job came up at its turn and stays held: it is passed over for the rest of the pass. */
  void passOver(PreparedJob job) {
    cursor[room.classOf(job)] = job;
  }

  /** The job is decided again: it leaves the held jobs. */
  void release(PreparedJob job) {
    byClass.get(room.classOf(job)).remove(job);
    heldUnder[job.index] = null;
  }

  Hold heldUnder(PreparedJob job) {
    return heldUnder[job.index];
  }

  long namespaceVersion(PreparedJob job) {
    return namespaceVersion[job.index];
  }
}
