package io.octomy.batch.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

/**
 * Measures a local process and all its descendants through oshi: processor use from the growth
 * of kernel + user time between readings (milli-cores = processor-ms / wall-ms x 1000), memory
 * as the sum of resident set sizes.
 *
 * <p>Processor time is tracked per process (pid plus start time, so a reused pid is a new
 * process): a process seen for the first time after the first reading counts all its time,
 * since it started after the previous reading. Limits of this view: time a child spends between
 * the last reading and its exit is not seen, and a process that leaves the tree (double fork to
 * init) stops being measured. Both make the figures low, never high.
 */
public final class ProcessTreeMeter implements UsageMeter {

  private final int pid;
  private final OperatingSystem os;
  private final Ticker ticker;
  private final UsageAccumulator acc = new UsageAccumulator();
  private Map<ProcessId, Long> lastCpuMillis;
  private long lastNanos;

  /** Meters {@code pid} with oshi's view of this operating system and the JVM's clock. */
  public ProcessTreeMeter(long pid) {
    this(pid, new SystemInfo().getOperatingSystem(), Ticker.system());
  }

  public ProcessTreeMeter(long pid, OperatingSystem os, Ticker ticker) {
    this.pid = Math.toIntExact(pid);
    this.os = os;
    this.ticker = ticker;
  }

  @Override
  public synchronized boolean sample() {
    OSProcess root = os.getProcess(pid);
    long now = ticker.nanos();
    if (root == null || root.getState() == OSProcess.State.INVALID) {
      return false;
    }
    List<OSProcess> tree = new ArrayList<>();
    tree.add(root);
    tree.addAll(os.getDescendantProcesses(pid, null, null, 0));

    Map<ProcessId, Long> cpuMillis = new HashMap<>();
    long memory = 0;
    long cpuDeltaMillis = 0;
    for (OSProcess p : tree) {
      ProcessId id = new ProcessId(p.getProcessID(), p.getStartTime());
      long cpu = p.getKernelTime() + p.getUserTime();
      cpuMillis.put(id, cpu);
      memory += p.getResidentMemory();
      if (lastCpuMillis != null) {
        cpuDeltaMillis += cpu - lastCpuMillis.getOrDefault(id, 0L);
      }
    }
    if (lastCpuMillis == null) {
      acc.first(memory);
    } else {
      acc.interval(now - lastNanos, cpuDeltaMillis * 1_000_000L, memory);
    }
    lastCpuMillis = cpuMillis;
    lastNanos = now;
    return true;
  }

  @Override
  public synchronized UsageSummary summary() {
    return acc.summary();
  }

  /** A process identity that survives pid reuse. */
  private record ProcessId(int pid, long startTime) {}
}
