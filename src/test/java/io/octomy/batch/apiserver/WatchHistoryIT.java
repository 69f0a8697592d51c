package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watch history is bounded by bytes with the default limits (64 MiB of text as kept, packed:
 * {@link CompactText}), not only by its 10,000 events: after 120 objects of 1 MB of random letters
 * (which pack to about two thirds), a watch from before them gets the real server's 410 {@code
 * Expired} at once, a watch from a recent version gets the events since, and the server serves on.
 */
class WatchHistoryIT {

  private static final String CM = "/api/v1/namespaces/default/configmaps";
  private static final int OBJECTS = 120;

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
    Random letters = new Random(7);
    long kept = 0;
    for (int i = 0; i < OBJECTS; i++) {
      String body =
          "{\"metadata\":{\"name\":\"big-"
              + i
              + "\"},\"data\":{\"b\":\""
              + megabyte(letters)
              + "\"}}";
      kept += CompactText.pack(body).length;
      RawApi.Answer a = api.post(CM, body);
      assertThat(a.code()).as("write %d", i).isEqualTo(201);
      if (i == OBJECTS - 5) {
        recent = resourceVersion(a);
      }
    }
    assertThat(kept)
        .as("the bodies as the history keeps them")
        .isGreaterThan(ObjectStore.HISTORY_BYTES);
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

  /** A million random letters: text that packing cannot shrink below the history's bound. */
  private static String megabyte(Random letters) {
    char[] text = new char[1_000_000];
    for (int i = 0; i < text.length; i++) {
      text[i] = (char) ('a' + letters.nextInt(26));
    }
    return new String(text);
  }

  private static String resourceVersion(RawApi.Answer a) {
    assertThat(a.code()).as(a.body()).isEqualTo(201);
    return a.json().path("metadata").path("resourceVersion").asText();
  }
}
