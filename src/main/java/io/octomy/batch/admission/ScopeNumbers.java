package io.octomy.batch.admission;

import java.util.HashMap;
import java.util.Map;

/**
 * Numbers for namespaces, and for groups and lock keys within their namespace, so that a pass
 * checks locks, groups and budgets by reading arrays at these numbers ({@link Reservations})
 * instead of hashing names for every job at its turn.
 *
 * <p>A {@link JobReading} holds the numbers of its job, and a {@link PassMemory} hands the numbers
 * to the next pass with the readings, so a job whose view did not change is numbered once, not once
 * per pass: at ten thousand jobs, looking a namespace up by name costs a cache miss on a string per
 * job. Numbers are only ever added, never changed, so a reading stays right for as long as it is
 * kept; the memory starts afresh (reading every job again) once the names it has numbered far
 * outnumber the jobs ({@link #outgrown}), so names that vanished are not kept forever.
 *
 * <p>Passes that share a memory may number new names at the same time: the methods that add are
 * synchronized.
 */
final class ScopeNumbers {

  /** A name (lock key or group) inside a namespace; hashed like {@link JobKey#hashCode}. */
  private record Scoped(String namespace, String name) {
    @Override
    public int hashCode() {
      return namespace.hashCode() * 0x9E3779B9 + name.hashCode();
    }
  }

  private final Map<String, Integer> namespaces = new HashMap<>();
  private final Map<Scoped, Integer> groups = new HashMap<>();
  private final Map<Scoped, Integer> locks = new HashMap<>();

  /** The namespace's number, numbering it when new. */
  synchronized int namespace(String namespace) {
    return number(namespaces, namespace);
  }

  /** The number of the group in the namespace, numbering it when new. */
  synchronized int group(String namespace, String group) {
    return number(groups, new Scoped(namespace, group));
  }

  /** The number of the lock key in the namespace, numbering it when new. */
  synchronized int lock(String namespace, String key) {
    return number(locks, new Scoped(namespace, key));
  }

  /** The namespace's number, or -1 when no job read with these numbers is in it. */
  synchronized int knownNamespace(String namespace) {
    return namespaces.getOrDefault(namespace, -1);
  }

  /** The lock's number, or -1 when no job read with these numbers names it. */
  synchronized int knownLock(String namespace, String key) {
    return locks.getOrDefault(new Scoped(namespace, key), -1);
  }

  /** How many namespaces are numbered: every namespace number read so far is below it. */
  synchronized int namespaceCount() {
    return namespaces.size();
  }

  /** How many groups are numbered: every group number read so far is below it. */
  synchronized int groupCount() {
    return groups.size();
  }

  /** How many lock keys are numbered: every lock number read so far is below it. */
  synchronized int lockCount() {
    return locks.size();
  }

  /**
   * True when these numbers cover many more names than {@code jobs} jobs could name (each names a
   * namespace, at most one group and a few locks): most of them belong to jobs long gone.
   */
  synchronized boolean outgrown(int jobs) {
    return namespaces.size() + groups.size() + locks.size() > 4L * jobs + 1024;
  }

  private static <K> int number(Map<K, Integer> numbers, K key) {
    Integer id = numbers.get(key);
    if (id == null) {
      id = numbers.size();
      numbers.put(key, id);
    }
    return id;
  }
}
