package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.CPU;
import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller on the embedded API server says a thing again as one Event with a count, as
 * Kubernetes' event correlator does: {@code kubectl describe} shows "x3 over 2s", not three lines.
 */
class RepeatedEventsIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

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
  void editsThatLeaveAJobRejectedRaiseTheCountOfItsOneRejectedEvent() throws Exception {
    embedded = EmbeddedServerController.open(dir);
    client = embedded.client;
    aNode("n1").capacity(CPU, 4000).heartbeat(embedded.clock.instant()).create(client);
    embedded.startController();
    aJob("ring-a").cpu(100).after("ring-b").create(client);
    aJob("ring-b").cpu(100).after("ring-a").create(client);
    Eventually.until(WAIT, "ring-a rejected", () -> rejectedOnRingA().size() == 1);

    for (long cpu : new long[] {200, 300}) {
      BatchJob edited =
          client
              .resources(BatchJob.class)
              .withName("ring-a")
              .edit(
                  j -> {
                    j.getSpec().getResources().getRequests().put(CPU, cpu);
                    j.getSpec().getResources().getLimits().put(CPU, cpu);
                    return j;
                  });
      // Each edit is decided again, and the decision is the same: Rejected, with the same words.
      Eventually.until(
          WAIT,
          "the edit to " + cpu + " decided",
          () -> {
            BatchJob j = client.resources(BatchJob.class).withName("ring-a").get();
            return Objects.equals(
                    j.getStatus().getObservedGeneration(), edited.getMetadata().getGeneration())
                && "DependencyCycle".equals(j.getStatus().getReason());
          });
    }

    Eventually.until(
        WAIT,
        "one Rejected event on ring-a, counted 3 times",
        () -> countsOnRingA().equals(List.of(3)));
  }

  private List<Integer> countsOnRingA() {
    return rejectedOnRingA().stream().map(Event::getCount).toList();
  }

  private List<Event> rejectedOnRingA() {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(
            e ->
                "Rejected".equals(e.getReason())
                    && "ring-a".equals(e.getInvolvedObject().getName()))
        .toList();
  }
}
