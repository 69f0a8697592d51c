package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.CPU;
import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backlog decided at once on the embedded API server: its admissions come faster than 100 a
 * second, so they are folded into Events with a count, none lost and none counted twice, while the
 * rejections among them keep an Event each.
 */
class EventBurstIT {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int JOBS = 300;

  @TempDir Path dir;
  private EmbeddedServerController embedded;
  private KubernetesClient client;

  @AfterEach
  void stop() {
    if (embedded != null) {
      embedded.close();
    }
  }

  @Test
  void aBurstOfAdmissionsIsFoldedWithEveryOneCountedAndRejectionsStayTheirOwn() throws Exception {
    embedded = EmbeddedServerController.open(dir);
    client = embedded.client;
    aNode("n1").capacity(CPU, 64_000).heartbeat(embedded.clock.instant()).create(client);
    for (int i = 0; i < JOBS; i++) {
      aJob(String.format("job-%03d", i)).cpu(10).create(client);
    }
    aJob("ring-a").cpu(10).after("ring-b").create(client);
    aJob("ring-b").cpu(10).after("ring-a").create(client);
    embedded.startController();

    Eventually.until(
        WAIT,
        "every admission counted in the Admitted Events",
        () -> events("Admitted").stream().mapToInt(Event::getCount).sum() >= JOBS);

    List<Event> admitted = events("Admitted");
    assertThat(admitted.stream().mapToInt(Event::getCount).sum())
        .as("each admission counted once")
        .isEqualTo(JOBS);
    assertThat(admitted).as("fewer writes than admissions").hasSizeLessThan(JOBS);
    assertThat(admitted.stream().filter(e -> e.getCount() > 1))
        .isNotEmpty()
        .allSatisfy(
            e ->
                assertThat(e.getMessage())
                    .startsWith("(combined from " + e.getCount() + " similar events on "));
    Eventually.until(WAIT, "both rejections recorded", () -> events("Rejected").size() == 2);
    assertThat(events("Rejected"))
        .allSatisfy(
            e -> {
              assertThat(e.getCount()).isEqualTo(1);
              assertThat(e.getInvolvedObject().getName()).startsWith("ring-");
              assertThat(e.getMessage()).startsWith("rejected: dependency cycle");
            });
  }

  private List<Event> events(String reason) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }
}
