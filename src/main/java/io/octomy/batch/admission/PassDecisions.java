package io.octomy.batch.admission;

import java.util.Arrays;

/**
 * The decisions of one pass in pass order, filled by the pass and read-only for everyone else:
 * {@link AdmissionResult} takes it as it is instead of copying ten thousand entries into a map of
 * its own, since nothing outside this package can add to it. The decisions sit in arrays in pass
 * order, and a job's is found through the pass's {@link KeyIndex} and its snapshot index, so adding
 * one hashes nothing and builds no entry.
 */
final class PassDecisions extends EntriesInOrder<Decision> {

  private final KeyIndex keys;

  /** Per snapshot index: the place of the job's decision, -1 when it has none. */
  private final int[] placeOf;

  private final JobKey[] decided;
  private final Decision[] decisions;

  /** Per place: the snapshot index of the job decided there. */
  private final int[] indexAt;

  private int size;

  /**
   * @param keys the pass's job keys to snapshot indexes
   * @param jobs how many jobs the snapshot has
   * @param expected how many decisions there will be at most
   */
  PassDecisions(KeyIndex keys, int jobs, int expected) {
    this.keys = keys;
    this.placeOf = new int[jobs];
    Arrays.fill(placeOf, -1);
    this.decided = new JobKey[expected];
    this.decisions = new Decision[expected];
    this.indexAt = new int[expected];
  }

  /** Adds the decision of the job whose turn it is; a job is decided once. */
  void add(PreparedJob job, Decision decision) {
    if (placeOf[job.index] >= 0) {
      throw new IllegalStateException(job.key + " decided twice in one pass");
    }
    placeOf[job.index] = size;
    indexAt[size] = job.index;
    decided[size] = job.key;
    decisions[size++] = decision;
  }

  /** How many jobs the snapshot decided over has. */
  int snapshotSize() {
    return placeOf.length;
  }

  /** Per place, in pass order: the snapshot index of the job decided there (a copy). */
  int[] snapshotIndexes() {
    return Arrays.copyOf(indexAt, size);
  }

  @Override
  JobKey keyAt(int place) {
    return decided[place];
  }

  @Override
  Decision valueAt(int place) {
    return decisions[place];
  }

  @Override
  public Decision get(Object key) {
    int at = placeOf(key);
    return at < 0 ? null : decisions[at];
  }

  @Override
  public boolean containsKey(Object key) {
    return placeOf(key) >= 0;
  }

  private int placeOf(Object key) {
    if (!(key instanceof JobKey job)) {
      return -1;
    }
    int index = keys.get(job);
    return index < 0 ? -1 : placeOf[index];
  }

  @Override
  public int size() {
    return size;
  }
}
