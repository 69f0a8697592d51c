package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allowWatchBookmarks=true}: a BOOKMARK with the latest resourceVersion (kind and version
 * only) comes at each bookmark interval after the events it covers, until the watch ends; a watch
 * that does not allow bookmarks gets none. The interval's timer is driven by hand.
 */
class WatchBookmarksTest {

  private static final long BOOKMARK_MILLIS = 7;
  private final ObjectMapper json = new ObjectMapper();
  private final List<Runnable> timers = new ArrayList<>();
  private final List<String> lines = new ArrayList<>();
  private final List<Runnable> onClosed = new ArrayList<>();

  @TempDir Path dir;
  private WatchedStore server;

  @BeforeEach
  void open() {
    server =
        new WatchedStore(
            dir,
            // the watch's own timeout (600 s) is left alone; only bookmark timers are driven
            (ms, task) -> {
              if (ms == BOOKMARK_MILLIS) {
                timers.add(task);
              }
            },
            BOOKMARK_MILLIS);
  }

  @AfterEach
  void close() {
    server.close();
  }

  private void watch(String query) {
    server.watch(
        query,
        new WatchSink() {
          @Override
          public void send(String event) {
            lines.add(event);
          }

          @Override
          public void end() {
            onClosed.forEach(Runnable::run);
          }

          @Override
          public void onClosed(Runnable action) {
            onClosed.add(action);
          }
        });
  }

  private void create(String name) {
    server.create(name);
  }

  private void fireTimers() {
    List<Runnable> due = new ArrayList<>(timers);
    timers.clear();
    due.forEach(Runnable::run);
  }

  private JsonNode last() throws Exception {
    return json.readTree(lines.get(lines.size() - 1));
  }

  @Test
  void aWatchThatAllowsBookmarksGetsOneAtEachIntervalWithTheLatestVersion() throws Exception {
    watch("allowWatchBookmarks=true&timeoutSeconds=600");
    create("a");
    create("b");
    fireTimers();
    assertThat(lines).hasSize(3);
    JsonNode bookmark = last();
    assertThat(bookmark.path("type").asText()).isEqualTo("BOOKMARK");
    assertThat(bookmark.at("/object/kind").asText()).isEqualTo("ConfigMap");
    assertThat(bookmark.at("/object/metadata/resourceVersion").asText())
        .isEqualTo(Long.toString(server.store.resourceVersion()));
    assertThat(bookmark.at("/object/metadata").has("name")).isFalse();
    assertThat(bookmark.at("/object/metadata").has("annotations")).isFalse();

    create("c");
    fireTimers();
    assertThat(last().at("/object/metadata/resourceVersion").asText())
        .isEqualTo(Long.toString(server.store.resourceVersion()));
    assertThat(lines).hasSize(5);

    onClosed.forEach(Runnable::run);
    fireTimers();
    assertThat(lines).hasSize(5);
  }

  @Test
  void aWatchThatDoesNotAllowBookmarksGetsNone() {
    watch("timeoutSeconds=600");
    create("a");
    fireTimers();
    assertThat(lines).hasSize(1).allSatisfy(l -> assertThat(l).contains("\"ADDED\""));
  }
}
