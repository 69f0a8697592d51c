package io.octomy.batch.admission;

/**
 * Job keys to snapshot indexes for one pass, filled once while the pass prepares its jobs and only
 * read after: open addressing over two int arrays (no boxed index, no entry object per job), each
 * slot holding its key's hash so that a probe compares keys only when the hashes agree. A key's
 * hash is taken from its {@link JobReading}, computed once per view and kept between passes.
 */
final class KeyIndex {

  private final JobKey[] keys;
  private final int[] hashes;

  /** Snapshot index + 1 per slot; 0 for an empty slot. */
  private final int[] slots;

  private final int mask;

  /** An index for at most {@code capacity} keys. */
  KeyIndex(int capacity) {
    int size = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) * 2; // at most half full
    keys = new JobKey[size];
    hashes = new int[size];
    slots = new int[size];
    mask = size - 1;
  }

  /**
   * Records the key at the snapshot index, unless it is there already.
   *
   * @param hash {@code key.hashCode()}
   * @return the snapshot index the key already had, or -1 when it is new
   */
  int putIfAbsent(JobKey key, int hash, int index) {
    for (int s = spread(hash) & mask; ; s = (s + 1) & mask) {
      if (slots[s] == 0) {
        keys[s] = key;
        hashes[s] = hash;
        slots[s] = index + 1;
        return -1;
      }
      if (hashes[s] == hash && keys[s].equals(key)) {
        return slots[s] - 1;
      }
    }
  }

  /** The snapshot index of the key, or -1. */
  int get(JobKey key) {
    return get(key, key.hashCode());
  }

  /** The snapshot index of the key whose {@code hashCode()} is {@code hash}, or -1. */
  int get(JobKey key, int hash) {
    for (int s = spread(hash) & mask; ; s = (s + 1) & mask) {
      if (slots[s] == 0) {
        return -1;
      }
      if (hashes[s] == hash && keys[s].equals(key)) {
        return slots[s] - 1;
      }
    }
  }

  /** Spreads the hash's bits so that keys with nearby hashes do not fill one run of slots. */
  private static int spread(int hash) {
    int h = hash * 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
