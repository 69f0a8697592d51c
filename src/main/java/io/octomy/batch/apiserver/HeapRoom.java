package io.octomy.batch.apiserver;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Whether the heap has room for one more object. The embedded server keeps every stored object in
 * memory, in a heap sized when the process started (standalone's launcher sizes it from the state
 * it starts on); a server that keeps taking new objects would fill it until the JVM spends all its
 * time collecting and stops with an {@code OutOfMemoryError}. So once what stays in the old
 * generation after a collection passes {@link #FULL} of its maximum, new objects are refused with
 * 403 and a message that says how to make room: objects already stored are still read, updated and
 * deleted (the controller keeps writing statuses, a user can delete what is done), as
 * kube-apiserver keeps serving when etcd's space quota refuses growth.
 *
 * <p>The reading is the old generation's use after its last collection ({@link
 * MemoryPoolMXBean#getCollectionUsage()}), so garbage does not count. It changes only when that
 * generation is collected, which the throughput collector does only once it is full: so when the
 * generation is filled past the mark (garbage included) or the last reading says full, and that
 * reading is older than {@link #REFRESH_NANOS}, a full collection is asked for ({@code
 * System.gc()}, a pause of a fraction of a second) and read before a create is refused. Room made
 * by deletes is thus seen within that time, and the mark holds near {@link #FULL} of live objects
 * rather than at the edge where the JVM itself gives up. Where the JVM gives no such reading (no
 * bounded old generation), every create is let through.
 */
final class HeapRoom {

  /** The old generation's use after a collection, over its maximum, from which creates wait. */
  static final double FULL = 0.8;

  /** A full reading older than this is taken again before a create is refused. */
  static final long REFRESH_NANOS = 10_000_000_000L;

  /**
   * The old generation in bytes: its use after its last collection, its use now (garbage included)
   * and its maximum.
   */
  record OldGeneration(long usedAfterCollection, long usedNow, long max) {
    boolean full() {
      return max > 0 && usedAfterCollection > FULL * max;
    }

    /** Full, or filled past the mark since it was last collected: worth collecting to know. */
    boolean mayBeFull() {
      return full() || (max > 0 && usedNow > FULL * max);
    }
  }

  private final Supplier<Optional<OldGeneration>> reading;
  private final Runnable collect;
  private final LongSupplier nanoTime;
  private final Object refreshing = new Object();

  /** When the last collection was asked for; at first, long enough ago for one now. */
  private long refreshedAt;

  HeapRoom(Supplier<Optional<OldGeneration>> reading, Runnable collect, LongSupplier nanoTime) {
    this.reading = reading;
    this.collect = collect;
    this.nanoTime = nanoTime;
    this.refreshedAt = nanoTime.getAsLong() - REFRESH_NANOS;
  }

  /** Reads this JVM's old generation; collects with {@code System.gc()}. */
  static HeapRoom ofThisJvm() {
    List<MemoryPoolMXBean> old =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP && p.isCollectionUsageThresholdSupported())
            .filter(p -> !p.getName().contains("Eden") && !p.getName().contains("Survivor"))
            .toList();
    return new HeapRoom(() -> readOldGeneration(old), System::gc, System::nanoTime);
  }

  private static Optional<OldGeneration> readOldGeneration(List<MemoryPoolMXBean> pools) {
    long used = 0;
    long usedNow = 0;
    long max = 0;
    for (MemoryPoolMXBean p : pools) {
      MemoryUsage after = p.getCollectionUsage();
      MemoryUsage now = p.getUsage();
      if (after == null || now.getMax() <= 0) {
        return Optional.empty();
      }
      used += after.getUsed();
      usedNow += now.getUsed();
      max += now.getMax();
    }
    return max > 0 ? Optional.of(new OldGeneration(used, usedNow, max)) : Optional.empty();
  }

  /** The old generation now, as last collected; empty where the JVM gives no such reading. */
  Optional<OldGeneration> reading() {
    return reading.get();
  }

  /**
   * Throws the 403 that refuses a new {@code kind} when the heap has no room for it.
   *
   * @throws ApiException 403 Forbidden, saying how much is used and how to make room
   */
  void requireRoomFor(String kind) {
    Optional<OldGeneration> now = reading.get();
    if (now.isEmpty() || !now.get().mayBeFull()) {
      return;
    }
    OldGeneration fresh = refreshed(now.get());
    if (fresh.full()) {
      throw new ApiException(
          403,
          "Forbidden",
          String.format(
              "%s not created: the server's heap is full (%d of %d MiB of its old generation in"
                  + " use after a collection); new objects are refused until there is room, those"
                  + " stored are still served. Delete objects that are done, or stop the server and"
                  + " start it again (standalone sizes its heap from the state it starts on), or"
                  + " give it a larger heap: java -Xmx4g -jar octomy-batch.jar standalone",
              kind, fresh.usedAfterCollection() >> 20, fresh.max() >> 20));
    }
  }

  /** A reading after a collection at most {@link #REFRESH_NANOS} old; one thread collects. */
  private OldGeneration refreshed(OldGeneration stale) {
    synchronized (refreshing) {
      if (nanoTime.getAsLong() - refreshedAt >= REFRESH_NANOS) {
        collect.run();
        refreshedAt = nanoTime.getAsLong();
      }
      return reading.get().orElse(stale);
    }
  }
}
