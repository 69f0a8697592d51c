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
    return (OSProcess)
        Proxy.newProxyInstance(
            OSProcess.class.getClassLoader(),
            new Class<?>[] {OSProcess.class},
            (proxy, m, args) ->
                switch (m.getName()) {
                  case "getProcessID" -> pid;
                  case "getStartTime" -> row[0];
                  case "getKernelTime" -> row[1] / 2;
                  case "getUserTime" -> row[1] - row[1] / 2;
                  case "getResidentMemory" -> row[2];
                  case "getParentProcessID" -> pid == ROOT ? 1 : ROOT;
                  case "getState" -> OSProcess.State.RUNNING;
                  default -> throw new UnsupportedOperationException(m.getName());
                });
  }

  private OperatingSystem os() {
    return (OperatingSystem)
        Proxy.newProxyInstance(
            OperatingSystem.class.getClassLoader(),
            new Class<?>[] {OperatingSystem.class},
            (proxy, m, args) ->
                switch (m.getName()) {
                  case "getProcess" ->
                      table.containsKey((Integer) args[0])
                          ? process((Integer) args[0], table.get((Integer) args[0]))
                          : null;
                  case "getDescendantProcesses" -> {
                    List<OSProcess> out = new ArrayList<>();
                    table.forEach(
                        (pid, row) -> {
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
    table.put(ROOT, new long[] {1, 10_500, 100}); // +500 ms
    table.put(101, new long[] {1, 50_200, 50}); // +200 ms
    table.put(102, new long[] {2, 300, 400}); // new child: all 300 ms are new
    assertThat(meter.sample()).isTrue();

    ticker.advanceMillis(1000);
    table.remove(102);
    table.put(101, new long[] {3, 100, 10}); // pid 101 reused by a new process
    table.put(ROOT, new long[] {1, 10_600, 100}); // +100 ms
    assertThat(meter.sample()).isTrue();

    UsageSummary s = meter.summary();
    assertThat(s.peakCpuMilli()).isEqualTo(1000); // 500 + 200 + 300 over 1 s
    assertThat(s.meanCpuMilli()).isEqualTo(600); // (1000 + 200) ms over 2 s
    assertThat(s.peakMemoryBytes()).isEqualTo(550);
    assertThat(s.meanMemoryBytes()).isEqualTo(330); // (550 + 110) / 2

    table.remove(ROOT);
    assertThat(meter.sample()).isFalse();
  }

  /** Scripted reaped-children times, as the kernel adds them to a parent when it reaps a child. */
  private final Map<Integer, Long> reaped = new TreeMap<>();

  private ReapedChildrenTime reapedTimes() {
    return new ReapedChildrenTime() {
      @Override
      public long millis(int pid) {
        return reaped.getOrDefault(pid, 0L);
      }

      @Override
      public boolean available() {
        return true;
      }
    };
  }

  @Test
  void childrenReapedBetweenReadingsAreCountedThroughTheirParentOnce() {
    ProcessTreeMeter meter = new ProcessTreeMeter(ROOT, os(), ticker, reapedTimes());
    table.put(ROOT, new long[] {1, 100, 10});
    table.put(101, new long[] {1, 300, 10}); // a child already running
    assertThat(meter.sample()).isTrue();

    ticker.advanceMillis(1000);
    // 101 ran 200 ms more and was reaped (its 500 ms land in ROOT's figure), and a child that
    // started and ended between the readings used 400 ms: ROOT's reaped time grows by 900.
    table.remove(101);
    reaped.put(ROOT, 900L);
    table.put(ROOT, new long[] {1, 150, 10}); // +50 ms of its own
    assertThat(meter.sample()).isTrue();

    // 50 own + 200 (101's last stretch) + 400 (the short child); 101's first 300 ms were
    // counted before (as baseline) and are not counted again.
    assertThat(meter.summary().peakCpuMilli()).isEqualTo(650);
  }

  @Test
  void statLinesAreReadFromTheLastParenthesis() {
    // Field 2 is the command name, which may hold spaces and parentheses.
    String stat =
        "4242 (my (odd) job) S 1 4242 4242 0 -1 4194304 120 300 0 0 7 3 250 50 20 0 1 0 123 4096 100";
    assertThat(ReapedChildrenTime.parse(stat, 100)).isEqualTo(3000); // (250 + 50) ticks at 100 Hz
  }
}
