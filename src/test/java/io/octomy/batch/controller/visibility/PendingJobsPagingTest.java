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
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The queue read in pages ({@code limit}, {@code continue}) and narrowed to the nodes a screen
 * shows ({@code expectedNode}): every page of one list from one forecast, even when the controller
 * has passed again between them; a token not given out, or of a forecast no longer kept, said so.
 */
class PendingJobsPagingTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private final ObjectMapper json = new ObjectMapper();

  /** Two nodes, each full with one running job; five jobs waiting behind them. */
  private final List<BatchJob> jobs = new ArrayList<>();

  private int passes;

  private final VisibilitySource source =
      new VisibilitySource() {
        @Override
        public Optional<AdmissionLoop.LastPass> lastPass() {
          // as the controller's loop: a pass of its own for each question here
          passes++;
          Snapshot s =
              new SnapshotBuilder()
                  .build(
                      jobs,
                      List.of(
                          aNode("n1").capacity("octomy.io/cpu-milli", 4000).heartbeat(NOW).build(),
                          aNode("n2").capacity("octomy.io/cpu-milli", 4000).heartbeat(NOW).build()),
                      new AssumedAdmissions(),
                      Policy.defaults(),
                      NOW);
          return Optional.of(new AdmissionLoop.LastPass(s, AdmissionPass.decide(s)));
        }

        @Override
        public Collection<BatchJob> jobs() {
          return jobs;
        }

        @Override
        public Collection<BatchJobProfile> profiles() {
          return List.of();
        }
      };

  private final VisibilityApi api =
      new VisibilityApi(
          new VisibilityService(source, Clock.fixed(NOW, ZoneOffset.UTC), JobOutputs.NONE), json);

  PendingJobsPagingTest() {
    jobs.add(
        aJob("run-1").namespace("a").now(NOW).cpu(4000).placed("n1", JobPhase.Running).build());
    jobs.add(
        aJob("run-2").namespace("a").now(NOW).cpu(4000).placed("n2", JobPhase.Running).build());
    for (int i = 1; i <= 5; i++) {
      jobs.add(aJob("wait-" + i).namespace(i % 2 == 0 ? "b" : "a").now(NOW).cpu(4000).build());
    }
  }

  private JsonNode get(String path, Map<String, String> query) throws IOException {
    VisibilityApi.Answer a =
        api.handle(
            new VisibilityApi.Call("GET", path, query, null, new byte[0]),
            VisibilityApi.Access.EVERYTHING);
    JsonNode body = json.readTree(a.body());
    assertThat(a.status()).as(body.toString()).isEqualTo(200);
    return body;
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.path("items").forEach(i -> names.add(i.path("metadata").path("name").asText()));
    return names;
  }

  @Test
  void pagesOfALimitFollowedByTheirContinueAreTheWholeQueueOfOneForecast() throws IOException {
    List<String> whole = names(get("/pendingjobs", Map.of()));
    assertThat(whole).hasSize(5);

    JsonNode first = get("/pendingjobs", Map.of("limit", "2"));
    assertThat(names(first)).containsExactlyElementsOf(whole.subList(0, 2));
    assertThat(first.path("metadata").path("remainingItemCount").asLong()).isEqualTo(3);
    // a job queued and another pass between pages: the pages stay those of the first forecast
    jobs.add(aJob("wait-0").namespace("a").now(NOW.minusSeconds(60)).cpu(4000).build());
    int passesBefore = passes;
    List<String> paged = new ArrayList<>(names(first));
    String token = first.path("metadata").path("continue").asText();
    while (!token.isEmpty()) {
      JsonNode page = get("/pendingjobs", Map.of("limit", "2", "continue", token));
      assertThat(page.path("items").size()).isLessThanOrEqualTo(2);
      paged.addAll(names(page));
      token = page.path("metadata").path("continue").asText();
    }
    assertThat(paged).containsExactlyElementsOf(whole);
    assertThat(passes).as("a next page is not a new forecast").isEqualTo(passesBefore);
    assertThat(names(get("/pendingjobs", Map.of()))).as("a new list is").contains("wait-0");
  }

  @Test
  void aNamespacesPagesAndATablesPagesCarryTheirContinue() throws IOException {
    JsonNode first = get("/namespaces/a/pendingjobs", Map.of("limit", "1"));
    assertThat(names(first)).containsExactly("wait-1");
    JsonNode second =
        get(
            "/namespaces/a/pendingjobs",
            Map.of("limit", "5", "continue", first.path("metadata").path("continue").asText()));
    assertThat(names(second)).containsExactly("wait-3", "wait-5");
    assertThat(second.path("metadata").has("continue")).isFalse();

    VisibilityApi.Answer table =
        api.handle(
            new VisibilityApi.Call(
                "GET",
                "/pendingjobs",
                Map.of("limit", "4"),
                "application/json;as=Table;v=v1;g=meta.k8s.io",
                new byte[0]),
            VisibilityApi.Access.EVERYTHING);
    JsonNode rows = json.readTree(table.body());
    assertThat(rows.path("rows")).hasSize(4);
    assertThat(rows.path("metadata").path("continue").asText()).isNotEmpty();
  }

  @Test
  void theFirstScreensNodesGetTheirExpectedJobsOnly() throws IOException {
    JsonNode whole = get("/pendingjobs", Map.of());
    Map<String, List<String>> byNode = new HashMap<>();
    whole
        .path("items")
        .forEach(
            i ->
                byNode
                    .computeIfAbsent(i.path("expectedNode").asText(), n -> new ArrayList<>())
                    .add(i.path("metadata").path("name").asText()));
    assertThat(byNode.get("n1")).isNotEmpty();
    assertThat(byNode.get("n2")).isNotEmpty();

    assertThat(names(get("/pendingjobs", Map.of("expectedNode", "n2"))))
        .containsExactlyElementsOf(byNode.get("n2"));
    List<String> both = names(get("/pendingjobs", Map.of("expectedNode", "n1,n2")));
    assertThat(both).hasSize(byNode.get("n1").size() + byNode.get("n2").size());
    assertThat(names(get("/pendingjobs", Map.of("expectedNode", "n3")))).isEmpty();
  }

  @Test
  void aTokenNotGivenOutAnExpiredOneAndABadLimitAreSaidSo() throws IOException {
    VisibilityApi.Answer bad = answer(Map.of("continue", "abc"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(new String(bad.body())).contains("metadata.continue");
    String token =
        get("/pendingjobs", Map.of("limit", "1")).path("metadata").path("continue").asText();
    for (int i = 0; i < PassForecasts.KEPT; i++) {
      get("/pendingjobs", Map.of()); // each a pass and a forecast of its own
    }
    VisibilityApi.Answer expired = answer(Map.of("continue", token));
    assertThat(expired.status()).isEqualTo(410);
    assertThat(new String(expired.body())).contains("without continue");
    assertThat(answer(Map.of("limit", "-1")).status()).isEqualTo(400);
    assertThat(answer(Map.of("expectedNode", ",")).status()).isEqualTo(400);
    assertThat(answer(Map.of("resourceVersion", "12")).status()).isEqualTo(400);
  }

  private VisibilityApi.Answer answer(Map<String, String> query) {
    return api.handle(
        new VisibilityApi.Call("GET", "/pendingjobs", query, null, new byte[0]),
        VisibilityApi.Access.EVERYTHING);
  }
}
