package io.octomy.batch.agent;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import oshi.SystemInfo;
import oshi.software.common.os.linux.LinuxOperatingSystem;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

/**
 * Measures a local process and all its descendants through oshi: processor use from the growth of
 * kernel + user time between readings (milli-cores = processor-ms / wall-ms x 1000), memory as the
 * sum of resident set sizes.
 *
 * <p>Processor time is tracked per process (pid plus start time, so a reused pid is a new process):
 * a process seen for the first time after the first reading counts all its time, since it started
 * after the previous reading. Each process's time includes what its reaped children used ({@link
 * ReapedChildrenTime}, Linux), so commands that start and end between two readings are counted
 * through the parent that waited for them. A process seen at the last reading and reaped since
 * reaches its parent's figure whole, so what was already counted of it is taken off once. Limits of
 * this view: a process that leaves the tree (double fork to init) stops being measured, and
 * children of a parent that ignores SIGCHLD are reaped by nobody's count. Both make the figures
 * low, never high.
 */
public final class ProcessTreeMeter implements UsageMeter {

  private final int pid;
  private final OperatingSystem os;
  private final Ticker ticker;
  private final ReapedChildrenTime reaped;
  private final UsageAccumulator acc = new UsageAccumulator();
  private Map<ProcessId, Reading> last;
  private long lastNanos;

  /** Meters {@code pid} with oshi's view of this operating system and the JVM's clock. */
  public ProcessTreeMeter(long pid) {
    this(pid, SYSTEM, Ticker.system(), systemReaped());
  }

  /** For tests that script the processes' own times only. */
  public ProcessTreeMeter(long pid, OperatingSystem os, Ticker ticker) {
    this(pid, os, ticker, ReapedChildrenTime.NONE);
  }

  ProcessTreeMeter(long pid, OperatingSystem os, Ticker ticker, ReapedChildrenTime reaped) {
    this.pid = Math.toIntExact(pid);
    this.os = os;
    this.ticker = ticker;
    this.reaped = reaped;
  }

  private static final OperatingSystem SYSTEM = new SystemInfo().getOperatingSystem();

  private static ReapedChildrenTime systemReaped() {
    return SYSTEM instanceof LinuxOperatingSystem linux
        ? ReapedChildrenTime.procfs(Path.of("/proc"), linux.getHz())
        : ReapedChildrenTime.NONE;
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

    Map<ProcessId, Reading> readings = new HashMap<>();
    Set<Integer> pids = new HashSet<>();
    long memory = 0;
    long cpuDeltaMillis = 0;
    for (OSProcess p : tree) {
      ProcessId id = new ProcessId(p.getProcessID(), p.getStartTime());
      long cpu = p.getKernelTime() + p.getUserTime() + reaped.millis(p.getProcessID());
      readings.put(id, new Reading(cpu, reaped.available() ? p.getParentProcessID() : 0));
      pids.add(p.getProcessID());
      memory += p.getResidentMemory();
      if (last != null) {
        Reading before = last.get(id);
        cpuDeltaMillis += cpu - (before == null ? 0 : before.cpuMillis());
      }
    }
    if (last != null && reaped.available()) {
      // Reaped since the last reading: its whole time is now in its parent's figure.
      for (Map.Entry<ProcessId, Reading> e : last.entrySet()) {
        if (!readings.containsKey(e.getKey()) && pids.contains(e.getValue().parentPid())) {
          cpuDeltaMillis -= e.getValue().cpuMillis();
        }
      }
    }
    if (last == null) {
      acc.first(memory);
    } else {
      acc.interval(now - lastNanos, cpuDeltaMillis * 1_000_000L, memory);
    }
    last = readings;
    lastNanos = now;
    return true;
  }

  @Override
  public synchronized UsageSummary summary() {
    return acc.summary();
  }

  /** A process identity that survives pid reuse. */
  private record ProcessId(int pid, long startTime) {}

  /** A process's own and reaped children's time, and its parent then. */
  private record Reading(long cpuMillis, int parentPid) {}
}
