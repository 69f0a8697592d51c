package io.octomy.batch.controller.visibility;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.AssumedAdmissions;
import io.octomy.batch.controller.SnapshotBuilder;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.Policy;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A list read with {@code resourceVersion=0} is answered at once from the newest forecast done,
 * however old, and says so: its {@code metadata.resourceVersion} names the pass it is of, and
 * {@code forecast} when that pass decided and that it is not the last; the last pass's forecast,
 * computed meanwhile, answers a later read.
 */
class OlderForecastListTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private final ObjectMapper json = new ObjectMapper();
  private final TestClock clock = TestClock.at(NOW);
  private final List<BatchJob> jobs = new ArrayList<>();
  private AdmissionLoop.LastPass last;

  private final VisibilitySource source =
      new VisibilitySource() {
        @Override
        public synchronized Optional<AdmissionLoop.LastPass> lastPass() {
          // as the controller's loop: one pass per moment, the same object for every reader
          if (last == null || !last.snapshot().now().equals(clock.instant())) {
            Snapshot s =
                new SnapshotBuilder()
                    .build(
                        List.copyOf(jobs),
                        List.of(
                            aNode("n1")
                                .capacity("octomy.io/cpu-milli", 4000)
                                .heartbeat(clock.instant())
                                .build()),
                        new AssumedAdmissions(),
                        Policy.defaults(),
                        clock.instant());
            last = new AdmissionLoop.LastPass(s, AdmissionPass.decide(s));
          }
          return Optional.of(last);
        }

        @Override
        public Collection<BatchJob> jobs() {
          return List.copyOf(jobs);
        }

        @Override
        public Collection<BatchJobProfile> profiles() {
          return List.of();
        }
      };

  private final VisibilityApi api =
      new VisibilityApi(new VisibilityService(source, clock, JobOutputs.NONE), json);

  private JsonNode anyRecent() throws IOException {
    VisibilityApi.Answer a =
        api.handle(
            new VisibilityApi.Call(
                "GET", "/pendingjobs", Map.of("resourceVersion", "0"), null, new byte[0]),
            VisibilityApi.Access.EVERYTHING);
    assertThat(a.status()).isEqualTo(200);
    return json.readTree(a.body());
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.path("items").forEach(i -> names.add(i.path("metadata").path("name").asText()));
    return names;
  }

  @Test
  void anOlderForecastIsGivenAtOnceSaidToBeOlderAndTheLastPasssFollows() throws Exception {
    jobs.add(aJob("first").namespace("a").now(NOW).cpu(8000).build());
    JsonNode before = anyRecent();
    assertThat(names(before)).containsExactly("first");
    assertThat(before.path("forecast").path("ofLastPass").asBoolean()).isTrue();
    assertThat(before.path("metadata").path("resourceVersion").asText())
        .isEqualTo(Long.toString(NOW.toEpochMilli()));

    clock.advance(Duration.ofMinutes(10));
    jobs.add(aJob("second").namespace("a").now(clock.instant()).cpu(8000).build());
    JsonNode older = anyRecent();
    assertThat(names(older)).as("at once, the forecast done").containsExactly("first");
    assertThat(older.path("forecast").path("ofLastPass").asBoolean()).isFalse();
    assertThat(older.path("forecast").path("passTime").asText()).isEqualTo(NOW.toString());
    assertThat(older.path("metadata").path("resourceVersion").asText())
        .isEqualTo(before.path("metadata").path("resourceVersion").asText());

    JsonNode latest = anyRecent();
    for (long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        !latest.path("forecast").path("ofLastPass").asBoolean() && System.nanoTime() < deadline; ) {
      Thread.sleep(20);
      latest = anyRecent();
    }
    assertThat(latest.path("forecast").path("ofLastPass").asBoolean())
        .as("the last pass's forecast, computed in the background, answers a later read")
        .isTrue();
    assertThat(names(latest)).containsExactly("first", "second");
    assertThat(latest.path("metadata").path("resourceVersion").asText())
        .isEqualTo(Long.toString(clock.instant().toEpochMilli()));
  }
}
