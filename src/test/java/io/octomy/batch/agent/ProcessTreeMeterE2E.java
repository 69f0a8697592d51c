package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.controller.drift.OverLimit;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Measures real child processes: a busy loop for processor time, tail buffering 100 MB for memory.
 */
class ProcessTreeMeterE2E {

  private static final long MB = 1_000_000L;

  @Test
  void measuresABusyAndHungryProcessTree() throws Exception {
    // The memory sits in a grandchild (tail holds one 100 MB line until EOF), the processor
    // time in the shell itself: both must be seen through the tree.
    Process p =
        new ProcessBuilder(
                "sh",
                "-c",
                "{ head -c 100000000 /dev/zero; sleep 30; } | tail >/dev/null & while :; do :; done")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      ProcessTreeMeter meter = new ProcessTreeMeter(p.pid());
      for (int i = 0; i < 8; i++) {
        assertThat(meter.sample()).isTrue();
        Thread.sleep(200);
      }
      UsageSummary s = meter.summary();
      assertThat(s.samples()).isEqualTo(8);
      assertThat(s.peakCpuMilli()).as("peak cpu").isGreaterThan(400);
      assertThat(s.meanCpuMilli())
          .as("mean cpu")
          .isGreaterThan(200)
          .isLessThanOrEqualTo(s.peakCpuMilli());
      assertThat(s.peakMemoryBytes()).as("peak memory").isGreaterThan(90 * MB);
      assertThat(s.meanMemoryBytes()).isLessThanOrEqualTo(s.peakMemoryBytes());

      // Measured above a small declared limit: the job would be marked OverLimit.
      Map<String, Long> limits =
          Map.of(
              "octomy.io/cpu-milli",
              100L,
              "octomy.io/memory-bytes",
              50 * MB,
              "example.com/licences",
              1L);
      assertThat(OverLimit.exceeded(limits, s.peak()))
          .containsExactly("octomy.io/cpu-milli", "octomy.io/memory-bytes");
      assertThat(OverLimit.exceeded(Map.of("octomy.io/memory-bytes", 1000 * MB), s.peak()))
          .isEmpty();
    } finally {
      List<ProcessHandle> tree = p.descendants().toList();
      tree.forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
    }
  }

  @Test
  void commandsThatStartAndEndBetweenReadingsAreCounted() throws Exception {
    // A script that keeps a core busy only through short children (a few ms each), so at almost
    // every reading the shell itself is idle, waiting.
    String child = "j=0; while [ $j -lt 2000 ]; do j=$((j+1)); done";
    Process p =
        new ProcessBuilder("sh", "-c", "while :; do sh -c '" + child + "'; done")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      ProcessTreeMeter meter = new ProcessTreeMeter(p.pid());
      assertThat(ReapedChildrenTime.procfs(Path.of("/proc"), 100).available())
          .as("Linux /proc, where reaped children's time is read")
          .isTrue();
      // The view without reaped children's time, on the same process at the same moments.
      ProcessTreeMeter ownTimesOnly =
          new ProcessTreeMeter(
              p.pid(), new oshi.SystemInfo().getOperatingSystem(), Ticker.system());
      for (int i = 0; i < 10; i++) {
        assertThat(meter.sample()).isTrue();
        assertThat(ownTimesOnly.sample()).isTrue();
        Thread.sleep(200);
      }
      long counted = meter.summary().meanCpuMilli();
      long ownOnly = ownTimesOnly.summary().meanCpuMilli();
      assertThat(counted)
          .as("mean cpu with reaped children (own times only: %d)", ownOnly)
          .isGreaterThan(200)
          .isGreaterThan(2 * ownOnly);
      assertThat(counted)
          .as("never more than this machine's cores")
          .isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors() * 1000L + 100);
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
    }
  }

  @Test
  void aGoneProcessReportsFalse() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    ProcessTreeMeter meter = new ProcessTreeMeter(p.pid());
    assertThat(meter.sample()).isFalse();
    assertThat(meter.summary()).isEqualTo(UsageSummary.EMPTY);
  }
}
