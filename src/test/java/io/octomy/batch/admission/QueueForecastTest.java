package io.octomy.batch.admission;

import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.NOW;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.queue;
import static io.octomy.batch.admission.Fixtures.world;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The forecast of a job that waits for its queue's max: it starts when its queue's jobs end. */
class QueueForecastTest {

  private static final RunTimeModel TEN_MINUTES =
      new RunTimeModel() {
        @Override
        public Instant expectedEnd(JobView job) {
          return NOW.plus(Duration.ofMinutes(10));
        }

        @Override
        public Duration expectedRunTime(JobView job) {
          return Duration.ofMinutes(10);
        }
      };

  @Test
  void aJobWaitingForItsQueuesMaxStartsAsItsQueueFrees() {
    Snapshot world =
        world()
            .with(queue("team").namespaces("team-a").max(CPU, 4000))
            .with(node("ws-1").capacity(CPU, 32000))
            .with(
                job("r").namespace("team-a").requests(CPU, 4000).running("ws-1"),
                job("j").namespace("team-a").requests(CPU, 2000).queuedMinutesAgo(2),
                job("k").namespace("team-a").requests(CPU, 3000).queuedMinutesAgo(1))
            .snapshot();

    Forecast forecast = AdmissionPass.forecast(world, TEN_MINUTES, Set.of());

    JobKey j = new JobKey("team-a", "j");
    JobKey k = new JobKey("team-a", "k");
    assertThat(forecast.next().decisions().get(j).reason()).isEqualTo(Reason.WaitingForQueueMax);
    assertThat(forecast.start(j).orElseThrow().at()).isEqualTo(NOW.plus(Duration.ofMinutes(10)));
    // j and k together are above the max: k follows j's end.
    assertThat(forecast.start(k).orElseThrow().at()).isEqualTo(NOW.plus(Duration.ofMinutes(20)));
    Map<JobKey, NaiveFuture.Start> fast = new HashMap<>();
    forecast.starts().forEach((key, s) -> fast.put(key, new NaiveFuture.Start(s.at(), s.node())));
    assertThat(fast).isEqualTo(NaiveFuture.starts(world, TEN_MINUTES));
  }
}
