package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageAccumulatorTest {

  private static final long SEC = 1_000_000_000L;

  @Test
  void peakIsTheBusiestIntervalAndMeanIsTimeOverTime() {
    UsageAccumulator acc = new UsageAccumulator();
    acc.first(100);
    acc.interval(1 * SEC, 2 * SEC, 300); // 2000 milli
    acc.interval(3 * SEC, SEC / 2, 100); // ~167 milli
    UsageSummary s = acc.summary();
    assertThat(s.peakCpuMilli()).isEqualTo(2000);
    assertThat(s.meanCpuMilli()).isEqualTo(625); // 2.5 s of cpu over 4 s
    assertThat(s.peakMemoryBytes()).isEqualTo(300);
    assertThat(s.meanMemoryBytes()).isEqualTo(150); // (300*1 + 100*3) / 4
    assertThat(s.samples()).isEqualTo(3);
    assertThat(s.peak())
        .isEqualTo(Map.of("octomy.io/cpu-milli", 2000L, "octomy.io/memory-bytes", 300L));
    assertThat(s.mean()).containsEntry("octomy.io/cpu-milli", 625L);
  }

  @Test
  void aKernelPeakBetweenReadingsRaisesThePeak() {
    UsageAccumulator acc = new UsageAccumulator();
    acc.first(100);
    acc.observedPeakMemory(900);
    assertThat(acc.summary().peakMemoryBytes()).isEqualTo(900);
    assertThat(acc.summary().meanMemoryBytes()).isEqualTo(100);
  }

  @Test
  void zeroLengthIntervalsAndBackwardCountersDoNotProduceNonsense() {
    UsageAccumulator acc = new UsageAccumulator();
    acc.first(10);
    acc.interval(0, SEC, 10);
    acc.interval(SEC, -SEC, 10);
    UsageSummary s = acc.summary();
    assertThat(s.peakCpuMilli()).isZero();
    assertThat(s.meanCpuMilli()).isZero();
  }
}
