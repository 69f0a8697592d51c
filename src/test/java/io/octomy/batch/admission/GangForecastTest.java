package io.octomy.batch.admission;

import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.NOW;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.world;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The expected start of a gang: it starts when every replica fits at once, so when enough running
 * jobs have ended on the nodes together; until then it holds nothing, and jobs behind it that fit
 * start first. The forecast agrees with passes repeated at each end.
 */
class GangForecastTest {

  /** r1 ends in 10 minutes, r2 in 20; every job admitted runs 30. */
  private static final RunTimeModel BY_NAME =
      new RunTimeModel() {
        @Override
        public Instant expectedEnd(JobView job) {
          return NOW.plus(Duration.ofMinutes(job.name().equals("r1") ? 10 : 20));
        }

        @Override
        public Duration expectedRunTime(JobView job) {
          return Duration.ofMinutes(30);
        }
      };

  private static Snapshot twoBusyNodes(int replicas) {
    return world()
        .with(node("ws-1").capacity(CPU, 4000), node("ws-2").capacity(CPU, 4000))
        .with(
            job("r1").requests(CPU, 2000).running("ws-1"),
            job("r2").requests(CPU, 2000).running("ws-2"),
            job("gang").requests(CPU, 2000).replicas(replicas).queuedMinutesAgo(5),
            job("after").requests(CPU, 4000))
        .snapshot();
  }

  @Test
  void aGangStartsWhenTheEndsTogetherMakeRoomForEveryReplica() {
    JobKey gang = new JobKey(Fixtures.NS, "gang");
    JobKey after = new JobKey(Fixtures.NS, "after");

    Snapshot three = twoBusyNodes(3);
    Forecast forecast = AdmissionPass.forecast(three, BY_NAME, Set.of());
    assertThat(forecast.next().decisions().get(gang).reason()).isEqualTo(Reason.WaitingForCapacity);
    // r1's end frees ws-1 for two replicas; ws-2 has room for the third.
    assertThat(forecast.start(gang).orElseThrow().at()).isEqualTo(NOW.plus(Duration.ofMinutes(10)));
    assertSameAsRepeatedPasses(three, forecast);

    Snapshot four = twoBusyNodes(4);
    forecast = AdmissionPass.forecast(four, BY_NAME, Set.of());
    // Four replicas need both nodes empty. At r1's end they fit only three, and holding nothing,
    // the gang lets the job behind it take ws-1; the gang starts when that one ends, r2 long gone.
    assertThat(forecast.start(after).orElseThrow().at())
        .isEqualTo(NOW.plus(Duration.ofMinutes(10)));
    assertThat(forecast.start(gang).orElseThrow().at()).isEqualTo(NOW.plus(Duration.ofMinutes(40)));
    assertSameAsRepeatedPasses(four, forecast);
  }

  private static void assertSameAsRepeatedPasses(Snapshot world, Forecast forecast) {
    Map<JobKey, NaiveFuture.Start> fast = new HashMap<>();
    forecast.starts().forEach((key, s) -> fast.put(key, new NaiveFuture.Start(s.at(), s.node())));
    assertThat(fast).isEqualTo(NaiveFuture.starts(world, BY_NAME));
  }
}
