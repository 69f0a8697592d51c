package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.octomy.batch.admission.QueueStanding;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A queue's fair-share term in its status: written with the pass's value, without churn. */
class QueueStatusWriterTest {

  private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

  private final FakeCluster cluster = new FakeCluster();
  private final QueueStatusWriter writer = new QueueStatusWriter(cluster);
  private final QueueUsageMeter usage = new QueueUsageMeter(Duration.ofHours(1));

  private static QueueStanding standing(long term) {
    return new QueueStanding("team", Map.of(), 0.25, 0.5, term, 1, 1, null);
  }

  private int writeAt(long term, Instant now) {
    List<QueueStanding> standings = List.of(standing(term));
    usage.record(standings, now);
    return writer.write(cluster.queues(), standings, usage, now);
  }

  @Test
  void theTermIsWrittenFromThePassAndAgainOnlyOnceItMovesByAPercent() {
    BatchQueue queue = new BatchQueue();
    queue.setMetadata(new ObjectMetaBuilder().withName("team").withGeneration(1L).build());
    queue.setSpec(new BatchQueueSpec());
    cluster.add(queue);

    assertThat(writeAt(397, T0)).isEqualTo(1);
    assertThat(cluster.queue("team").getStatus().getFairShareTerm()).isEqualTo(397L);

    // Past usage decays a point at a time: 395 is within 1 % of 397, not worth a write alone.
    assertThat(writeAt(395, T0.plusSeconds(10))).as("drift under 1 %: no write").isZero();
    assertThat(cluster.queue("team").getStatus().getFairShareTerm()).isEqualTo(397L);

    // 380 is 17 points (4 %) off: written, but not within MIN_INTERVAL of the last write.
    assertThat(writeAt(380, T0.plusSeconds(10).plus(Duration.ofMinutes(1)))).isEqualTo(1);
    assertThat(writeAt(300, T0.plusSeconds(12).plus(Duration.ofMinutes(1)))).isZero();
    assertThat(cluster.queue("team").getStatus().getFairShareTerm()).isEqualTo(380L);
    assertThat(cluster.queueWrites()).isEqualTo(2);
  }
}
