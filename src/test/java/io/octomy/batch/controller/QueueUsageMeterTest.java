package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.octomy.batch.admission.QueueStanding;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A queue's decayed past usage: how it grows, fades, and survives a restart. */
class QueueUsageMeterTest {

  private static final String CPU = "octomy.io/cpu-milli";
  private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
  private static final Duration HOUR = Duration.ofHours(1);
  private static final double MEAN_LIFE = 3600 / Math.log(2);

  private static BatchQueue queue(BatchQueueStatus status) {
    BatchQueue q = new BatchQueue();
    q.setMetadata(new ObjectMetaBuilder().withName("team").build());
    q.setStatus(status);
    return q;
  }

  private static QueueStanding holding(long cpu) {
    return new QueueStanding("team", cpu == 0 ? Map.of() : Map.of(CPU, cpu), 0, 0, 0, 0, 0, null);
  }

  private static long cpuAt(QueueUsageMeter meter, BatchQueue q, Instant t) {
    return meter.at(List.of(q), t).get("team").getOrDefault(CPU, 0L);
  }

  @Test
  void whatIsHeldAddsUpEachSecondFadedByItsAgeAndFadesByHalfEachHalfLife() {
    QueueUsageMeter meter = new QueueUsageMeter(HOUR);
    BatchQueue q = queue(null);
    assertThat(cpuAt(meter, q, T0)).isZero();
    meter.record(List.of(holding(1000)), T0);

    // Held for one half-life: 1000 x mean life x (1 - 1/2).
    long afterAnHour = cpuAt(meter, q, T0.plus(HOUR));
    assertThat((double) afterAnHour).isCloseTo(1000 * MEAN_LIFE * 0.5, within(1.0));
    meter.record(List.of(holding(0)), T0.plus(HOUR));

    // Nothing held since: it halves every hour.
    assertThat((double) cpuAt(meter, q, T0.plus(HOUR.multipliedBy(2))))
        .isCloseTo(afterAnHour / 2.0, within(1.0));
    // Held for long, it tends to 1000 x mean life: a steady holding counts twice in FairShare.
    QueueUsageMeter steady = new QueueUsageMeter(HOUR);
    steady.record(List.of(holding(1000)), T0);
    assertThat((double) cpuAt(steady, q, T0.plus(HOUR.multipliedBy(40))))
        .isCloseTo(1000 * MEAN_LIFE, within(1.0));
  }

  @Test
  void aRestartedControllerGoesOnFromTheStatusCountingNothingTwice() {
    BatchQueueStatus kept = new BatchQueueStatus();
    kept.setDecayedUsage(Map.of(CPU, 4_000_000L));
    kept.setDecayedUsageAt(Times.format(T0));
    kept.setUsage(Map.of(CPU, 1000L));
    QueueUsageMeter restarted = new QueueUsageMeter(HOUR);

    long later = cpuAt(restarted, queue(kept), T0.plus(HOUR));

    // The kept value halved, plus the hour since at the holding the status shows.
    assertThat((double) later).isCloseTo(2_000_000 + 1000 * MEAN_LIFE * 0.5, within(1.0));
    // Asked again at the same time: the same value (not added again).
    assertThat(cpuAt(restarted, queue(kept), T0.plus(HOUR))).isEqualTo(later);
  }
}
