package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watch history is bounded by bytes with the default limits (64 MiB), not only by its 10,000
 * events: after 70 objects of 1 MB, a watch from before them gets the real server's 410 {@code
 * Expired} at once, a watch from a recent version gets the events since, and the server serves on.
 */
class WatchHistoryIT {

  private static final String CM = "/api/v1/namespaces/default/configmaps";
  private static final int OBJECTS = 70;
  private static final String MEGABYTE = "m".repeat(1_000_000);

  @TempDir static Path dir;
  static EmbeddedApiServer server;
  static RawApi api;

  @BeforeAll
  static void start() {
    server = EmbeddedApiServer.start(dir, 0, List.of());
    api = new RawApi(server);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void oldVersionsExpireByBytesAndRecentOnesAreServed() {
    String first = resourceVersion(api.post(CM, "{\"metadata\":{\"name\":\"first\"}}"));
    String recent = null;
    for (int i = 0; i < OBJECTS; i++) {
      RawApi.Answer a =
          api.post(
              CM,
              "{\"metadata\":{\"name\":\"big-" + i + "\"},\"data\":{\"b\":\"" + MEGABYTE + "\"}}");
      assertThat(a.code()).as("write %d", i).isEqualTo(201);
      if (i == OBJECTS - 5) {
        recent = resourceVersion(a);
      }
    }
    assertThat((long) OBJECTS * MEGABYTE.length()).isGreaterThan(ObjectStore.HISTORY_BYTES);
    assertThat(OBJECTS).isLessThan(ObjectStore.HISTORY);

    RawApi.Answer expired = api.get(CM + "?watch=true&timeoutSeconds=5&resourceVersion=" + first);
    assertThat(expired.code()).isEqualTo(200);
    assertThat(expired.body())
        .contains("\"type\":\"ERROR\"")
        .contains("\"code\":410")
        .contains("\"reason\":\"Expired\"");

    RawApi.Answer since = api.get(CM + "?watch=true&timeoutSeconds=1&resourceVersion=" + recent);
    assertThat(since.code()).isEqualTo(200);
    assertThat(since.body()).doesNotContain("\"type\":\"ERROR\"");
    for (int i = OBJECTS - 4; i < OBJECTS; i++) {
      assertThat(since.body()).contains("\"name\":\"big-" + i + "\"");
    }
    assertThat(since.body()).doesNotContain("\"name\":\"big-" + (OBJECTS - 5) + "\"");
    assertThat(api.get(CM + "/first").code()).isEqualTo(200);
  }

  private static String resourceVersion(RawApi.Answer a) {
    assertThat(a.code()).as(a.body()).isEqualTo(201);
    return a.json().path("metadata").path("resourceVersion").asText();
  }
}
