package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

/** The per-process bookkeeping of {@link ProcessTreeMeter} on a scripted process table. */
class ProcessTreeMeterMathTest {

  private static final int ROOT = 100;
  private final Map<Integer, long[]> table = new TreeMap<>(); // pid -> {startTime, cpuMs, rss}
  private final FakeTicker ticker = new FakeTicker();

  private static OSProcess process(int pid, long[] row) {
    return (OSProcess) Proxy.newProxyInstance(OSProcess.class.getClassLoader(),
        new Class<?>[] {OSProcess.class}, (proxy, m, args) -> switch (m.getName()) {
          case "getProcessID" -> pid;
          case "getStartTime" -> row[0];
          case "getKernelTime" -> row[1] / 2;
          case "getUserTime" -> row[1] - row[1] / 2;
          case "getResidentMemory" -> row[2];
          case "getState" -> OSProcess.State.RUNNING;
          default -> throw new UnsupportedOperationException(m.getName());
        });
  }

  private OperatingSystem os() {
    return (OperatingSystem) Proxy.newProxyInstance(OperatingSystem.class.getClassLoader(),
        new Class<?>[] {OperatingSystem.class}, (proxy, m, args) -> switch (m.getName()) {
          case "getProcess" -> table.containsKey((Integer) args[0])
              ? process((Integer) args[0], table.get((Integer) args[0])) : null;
          case "getDescendantProcesses" -> {
            List<OSProcess> out = new ArrayList<>();
            table.forEach((pid, row) -> {
              if (pid != ROOT) {
                out.add(process(pid, row));
              }
            });
            yield out;
          }
          default -> throw new UnsupportedOperationException(m.getName());
        });
  }

  @Test
  void childrenComingGoingAndPidReuseAreCountedOnce() {
    ProcessTreeMeter meter = new ProcessTreeMeter(ROOT, os(), ticker);
    table.put(ROOT, new long[] {1, 10_000, 100});
    table.put(101, new long[] {1, 50_000, 50}); // old cpu time before metering: baseline only
    assertThat(meter.sample()).isTrue();

    ticker.advanceMillis(1000);
    table.put(ROOT, new long[] {1, 10_500, 100});   // +500 ms
    table.put(101, new long[] {1, 50_200, 50});     // +200 ms
    table.put(102, new long[] {2, 300, 400});       // new child: all 300 ms are new
    assertThat(meter.sample()).isTrue();

    ticker.advanceMillis(1000);
    table.remove(102);
    table.put(101, new long[] {3, 100, 10});        // pid 101 reused by a new process
    table.put(ROOT, new long[] {1, 10_600, 100});   // +100 ms
    assertThat(meter.sample()).isTrue();

    UsageSummary s = meter.summary();
    assertThat(s.peakCpuMilli()).isEqualTo(1000);   // 500 + 200 + 300 over 1 s
    assertThat(s.meanCpuMilli()).isEqualTo(600);    // (1000 + 200) ms over 2 s
    assertThat(s.peakMemoryBytes()).isEqualTo(550);
    assertThat(s.meanMemoryBytes()).isEqualTo(330); // (550 + 110) / 2

    table.remove(ROOT);
    assertThat(meter.sample()).isFalse();
  }
}
