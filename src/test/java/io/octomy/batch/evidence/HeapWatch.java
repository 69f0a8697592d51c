package io.octomy.batch.evidence;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Heap figures of this JVM: the peak of used heap (sum of the heap pools' peaks, garbage included)
 * and the largest heap left after any collection (an upper bound of the live set).
 */
final class HeapWatch {

  private final AtomicLong maxAfterGc = new AtomicLong();

  HeapWatch() {
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(
            (n, h) -> {
              if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                  n.getType())) {
                return;
              }
              var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
              long used =
                  info.getGcInfo().getMemoryUsageAfterGc().values().stream()
                      .filter(u -> u != null)
                      .mapToLong(MemoryUsage::getUsed)
                      .sum();
              // Non-heap pools (metaspace, code cache) are in the map too; they are small and
              // steady.
              maxAfterGc.accumulateAndGet(used, Math::max);
            },
            null,
            null);
      }
    }
  }

  /** Starts the peak over from now. */
  void reset() {
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
    maxAfterGc.set(0);
  }

  long peakUsedBytes() {
    return ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP)
        .mapToLong(p -> p.getPeakUsage().getUsed())
        .sum();
  }

  long maxAfterGcBytes() {
    return maxAfterGc.get();
  }

  static String mib(long bytes) {
    return (bytes >> 20) + " MiB";
  }
}
