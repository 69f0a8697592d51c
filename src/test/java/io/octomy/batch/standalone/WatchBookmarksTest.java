package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  private final ResourceRegistry registry = new ResourceRegistry();

  @TempDir Path dir;
  private ObjectStore store;
  private WatchHandler watches;

  @BeforeEach
  void open() {
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    store = new ObjectStore(json, db, new CommitGuard(json, key -> null), ObjectStore.HISTORY);
    watches =
        new WatchHandler(
            store,
            json,
            new TableRenderer(Clock.systemUTC()),
            // the watch's own timeout (600 s) is left alone; only bookmark timers are driven
            (ms, task) -> {
              if (ms == BOOKMARK_MILLIS) {
                timers.add(task);
              }
            },
            BOOKMARK_MILLIS,
            new SerializedObjects(json));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private void watch(String query) {
    String path = "/api/v1/namespaces/default/configmaps";
    Map<String, String> params = new HashMap<>(Map.of("watch", "true"));
    for (String kv : query.split("&")) {
      if (!kv.isEmpty()) {
        params.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
    }
    ApiRequest req = new ApiRequest("GET", path, params, "", "", new byte[0]);
    RequestPath p = RequestPath.parse(path, registry).orElseThrow();
    ResourceType type = registry.find("", "v1", "configmaps").orElseThrow();
    watches.watch(
        req,
        p,
        type,
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
    store.write(
        "/configmaps",
        "default",
        name,
        false,
        current -> {
          ObjectNode o = json.createObjectNode();
          o.put("apiVersion", "v1").put("kind", "ConfigMap");
          o.putObject("metadata").put("name", name).put("namespace", "default");
          return new ObjectStore.Put(o);
        });
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
        .isEqualTo(Long.toString(store.resourceVersion()));
    assertThat(bookmark.at("/object/metadata").has("name")).isFalse();
    assertThat(bookmark.at("/object/metadata").has("annotations")).isFalse();

    create("c");
    fireTimers();
    assertThat(last().at("/object/metadata/resourceVersion").asText())
        .isEqualTo(Long.toString(store.resourceVersion()));
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
