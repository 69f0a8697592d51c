package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The recorder's thread sends what the folding lets out, and its close loses nothing. */
class EventRecorderTest {

  private record Sent(String job, String reason, int count) {}

  @Test
  void aBurstGoesOutAsTheRateAllowsThenAsOneFoldedEventAndCloseSendsTheFold() {
    List<Sent> sent = new ArrayList<>();
    EventRecorder r =
        new EventRecorder(
            (job, event, count) -> {
              synchronized (sent) {
                sent.add(new Sent(job.getMetadata().getName(), event.reason(), count));
              }
            },
            () -> 0L, // time stands still: the rate never lets up, no fold falls due
            new ControllerMetrics(new SimpleMeterRegistry()));
    for (int i = 0; i < 1000; i++) {
      r.record(aJob("j" + i).build(), JobEvent.normal("Admitted", "m"));
    }
    r.close();
    assertThat(sent).hasSize(EventFolding.RATE + 1);
    assertThat(sent.subList(0, EventFolding.RATE)).allMatch(s -> s.count() == 1);
    assertThat(sent.get(EventFolding.RATE)).isEqualTo(new Sent("j999", "Admitted", 900));
    assertThat(sent.stream().mapToInt(Sent::count).sum()).isEqualTo(1000);
  }
}
