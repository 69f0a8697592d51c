package io.octomy.batch.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Measures a Kubernetes pod from its cgroup v2 files, read-only: processor use from the growth of
 * {@code usage_usec} in {@code cpu.stat} between readings, memory from {@code memory.current}, and
 * the peak also from {@code memory.peak} where the kernel keeps it (5.19+), which catches spikes
 * between readings.
 *
 * <p>The directory is looked up by pod UID on each reading until found ({@link PodCgroupLocator}),
 * because the meter may be created before the kubelet makes the cgroup.
 */
public final class CgroupPodMeter implements UsageMeter {

  private final Path root;
  private final String podUid;
  private final Ticker ticker;
  private final UsageAccumulator acc = new UsageAccumulator();
  private Path dir;
  private long lastUsageUsec = -1;
  private long lastNanos;

  /** Meters a pod under the real cgroup mount with the JVM's clock. */
  public CgroupPodMeter(String podUid) {
    this(CgroupBounds.DEFAULT_ROOT, podUid, Ticker.system());
  }

  /**
   * @param root the cgroup v2 mount (a fake tree in tests)
   * @param podUid {@code metadata.uid} of the pod
   * @param ticker time source for rates
   */
  public CgroupPodMeter(Path root, String podUid, Ticker ticker) {
    this.root = root;
    this.podUid = podUid;
    this.ticker = ticker;
  }

  /**
   * @return false while the pod's cgroup does not exist (not yet made, or already removed)
   */
  @Override
  public synchronized boolean sample() {
    if (dir == null) {
      dir = PodCgroupLocator.find(root, podUid).orElse(null);
      if (dir == null) {
        return false;
      }
    }
    OptionalLong usage = usageUsec(dir.resolve("cpu.stat"));
    OptionalLong current = number(dir.resolve("memory.current"));
    long now = ticker.nanos();
    if (usage.isEmpty() || current.isEmpty()) {
      return false; // the kubelet removed the cgroup between our reads
    }
    if (lastUsageUsec < 0) {
      acc.first(current.getAsLong());
    } else {
      acc.interval(
          now - lastNanos, (usage.getAsLong() - lastUsageUsec) * 1000L, current.getAsLong());
    }
    number(dir.resolve("memory.peak")).ifPresent(acc::observedPeakMemory);
    lastUsageUsec = usage.getAsLong();
    lastNanos = now;
    return true;
  }

  @Override
  public synchronized UsageSummary summary() {
    return acc.summary();
  }

  private static OptionalLong usageUsec(Path cpuStat) {
    try {
      for (String line : Files.readAllLines(cpuStat)) {
        String[] kv = line.trim().split("\\s+");
        if (kv.length == 2 && kv[0].equals("usage_usec")) {
          return OptionalLong.of(Long.parseLong(kv[1]));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // fall through: unreadable counts as absent
    }
    return OptionalLong.empty();
  }

  private static OptionalLong number(Path file) {
    try {
      return OptionalLong.of(Long.parseLong(Files.readString(file).trim()));
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
