package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * A store in a directory of its own and the watch handler over it, for tests of watches without
 * HTTP: ConfigMaps in {@code default} are created and watched with a query string as a client sends
 * it.
 */
final class WatchedStore implements AutoCloseable {

  private static final String PATH = "/api/v1/namespaces/default/configmaps";

  final ObjectMapper json = new ObjectMapper();
  private final ResourceRegistry registry = new ResourceRegistry();
  final ObjectStore store;
  private final WatchHandler watches;

  WatchedStore(Path dir, WatchHandler.Scheduler scheduler, long bookmarkMillis) {
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    store = new ObjectStore(json, db, new CommitGuard(json, key -> null), ObjectStore.HISTORY);
    watches =
        new WatchHandler(
            store,
            json,
            new TableRenderer(Clock.systemUTC()),
            scheduler,
            bookmarkMillis,
            new SerializedObjects(json));
  }

  /** Watches the ConfigMaps of {@code default} with {@code query} ("a=1&b=2"; watch=true added). */
  void watch(String query, WatchSink sink) {
    Map<String, String> params = new HashMap<>(Map.of("watch", "true"));
    for (String kv : query.split("&")) {
      if (!kv.isEmpty()) {
        params.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
    }
    watches.watch(
        new ApiRequest("GET", PATH, params, "", "", new byte[0]),
        RequestPath.parse(PATH, registry).orElseThrow(),
        registry.find("", "v1", "configmaps").orElseThrow(),
        sink);
  }

  /** Creates an empty ConfigMap in {@code default}; returns it as stored. */
  ObjectNode create(String name) {
    return store.write(
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

  @Override
  public void close() {
    store.close();
  }
}
