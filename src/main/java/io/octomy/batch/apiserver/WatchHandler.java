package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * Watches ({@code ?watch=true} / {@code ?watch=1}): replays from the requested resourceVersion (or
 * sends every current object as ADDED when none is given, or "0"), then streams each committed
 * change. A version older than the kept history gets the real server's answer, an ERROR event with
 * a 410 {@code Expired} Status, after which clients relist. Events are plain objects or, when the
 * client asks for {@code as=Table} (kubectl get -w), one-row Tables. With {@code
 * allowWatchBookmarks=true} a BOOKMARK carrying the latest resourceVersion is sent every minute, as
 * the real server's watch cache does, so a client that resumes after a quiet hour starts from a
 * recent version rather than one the history no longer holds.
 */
final class WatchHandler {

  private final ObjectStore store;
  private final ObjectMapper json;
  private final TableRenderer tables;
  private final Scheduler scheduler;
  private final long bookmarkMillis;
  private final SerializedObjects texts;

  /** How often a watch that allows bookmarks gets one. */
  static final long BOOKMARK_MILLIS = 60_000;

  /** Runs a task after a delay (the HTTP layer's timer), for {@code timeoutSeconds}. */
  interface Scheduler {
    void schedule(long millis, Runnable task);
  }

  WatchHandler(ObjectStore store, ObjectMapper json, TableRenderer tables, Scheduler scheduler) {
    this(store, json, tables, scheduler, BOOKMARK_MILLIS, new SerializedObjects(json));
  }

  /**
   * @param texts the text of stored objects, shared with the answers to writes
   */
  WatchHandler(
      ObjectStore store,
      ObjectMapper json,
      TableRenderer tables,
      Scheduler scheduler,
      long bookmarkMillis,
      SerializedObjects texts) {
    this.texts = texts;
    this.bookmarkMillis = bookmarkMillis;
    this.store = store;
    this.json = json;
    this.tables = tables;
    this.scheduler = scheduler;
  }

  static boolean isWatch(ApiRequest req) {
    return "GET".equals(req.method()) && req.flag("watch");
  }

  void watch(ApiRequest req, RequestPath p, ResourceType type, WatchSink sink) {
    Predicate<JsonNode> filter =
        Selectors.labels(req.param("labelSelector"))
            .and(FieldSelectors.of(req.param("fieldSelector"), type, p.version()));
    if (p.name() != null) {
      filter = filter.and(o -> p.name().equals(o.path("metadata").path("name").asText()));
    }
    boolean table = TableRenderer.wantsTable(req.accept());
    String rv = req.param("resourceVersion");
    boolean initialEvents = req.flag("sendInitialEvents");
    long timeoutMillis = timeoutMillis(req.param("timeoutSeconds"));
    Long from =
        rv == null || rv.isEmpty() || rv.equals("0") || initialEvents ? null : parseVersion(rv);
    Predicate<JsonNode> matches = filter;
    // A watch that selects nothing sees every change as it is: it never reads the object before
    // one.
    boolean selects =
        p.name() != null
            || !isBlank(req.param("labelSelector"))
            || !isBlank(req.param("fieldSelector"));
    ObjectStore.Watcher watcher =
        new ObjectStore.Watcher() {
          @Override
          public boolean matches(ObjectStore.Event event) {
            return !selects
                || matches.test(event.object())
                || (event.hasPrevious() && matches.test(event.previous()));
          }

          @Override
          public void send(ObjectStore.Event event) {
            SelectedChange seen =
                selects
                    ? SelectedChange.of(event, matches)
                    : new SelectedChange(event.type(), event.object());
            ObjectNode object = ServedObjects.view(type, p.version(), seen.object());
            if (!table && object == event.object()) {
              // served as stored: every watch of the resource sends the same text
              sink.send(texts.watchLine(seen.type().name(), object));
              return;
            }
            JsonNode body =
                table
                    ? tables.table(
                        type,
                        p.version(),
                        List.of(object),
                        req.param("includeObject"),
                        event.resourceVersion())
                    : object;
            sink.send(line(seen.type().name(), body));
          }
        };
    try {
      Runnable stop =
          store.watch(
              type.storageKey(),
              type.namespaced() ? p.namespace() : null,
              from,
              watcher,
              () -> {
                if (initialEvents) {
                  sink.send(line("BOOKMARK", bookmark(type, p.version())));
                }
                sink.replayDone();
              },
              () -> {
                // as a real server ends a watch it cannot serve: an ERROR event, then the end;
                // clients watch again from the last resourceVersion they saw
                sink.send(
                    line(
                        "ERROR",
                        ApiException.status(
                            500,
                            "InternalError",
                            "this watch could not send an event and has ended; watch again",
                            null,
                            null,
                            List.of())));
                sink.end();
              });
      AtomicBoolean open = new AtomicBoolean(true);
      sink.onClosed(
          () -> {
            open.set(false);
            stop.run();
          });
      if (req.flag("allowWatchBookmarks") && !table) {
        scheduleBookmark(type, p.version(), sink, open);
      }
    } catch (ObjectStore.GoneException e) {
      sink.send(
          line(
              "ERROR", ApiException.status(410, "Expired", e.getMessage(), null, null, List.of())));
      sink.end();
      return;
    }
    if (timeoutMillis <= 0) {
      sink.end();
    } else {
      scheduler.schedule(timeoutMillis, sink::end);
    }
  }

  /**
   * How long a watch stays open: {@code timeoutSeconds} when positive; when absent or 0 a random 30
   * to 60 minutes (a real server's default of its minimum request timeout, 1800 s, times a random
   * factor between 1 and 2), after which clients watch again; a negative value ends the watch once
   * its initial events are sent, as on a real server.
   */
  static long timeoutMillis(String timeoutSeconds) {
    long seconds;
    try {
      seconds =
          timeoutSeconds == null || timeoutSeconds.isEmpty() ? 0 : Long.parseLong(timeoutSeconds);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest(
          "timeoutSeconds: Invalid value: \"" + timeoutSeconds + "\": must be a whole number");
    }
    if (seconds == 0) {
      return (long) (1_800_000L * (1 + ThreadLocalRandom.current().nextDouble()));
    }
    return seconds < 0 ? 0 : Math.min(seconds, Long.MAX_VALUE / 1000) * 1000;
  }

  private ObjectNode bookmark(ResourceType type, String version) {
    ObjectNode o = bookmarkAt(type, version, store.resourceVersion());
    o.withObjectProperty("metadata")
        .putObject("annotations")
        .put("k8s.io/initial-events-end", "true");
    return o;
  }

  /** A bookmark holds only the kind and a resourceVersion, as on a real server. */
  private ObjectNode bookmarkAt(ResourceType type, String version, long resourceVersion) {
    ObjectNode o = json.createObjectNode();
    o.put("kind", type.kind()).put("apiVersion", type.apiVersion(version));
    o.putObject("metadata").put("resourceVersion", Long.toString(resourceVersion));
    return o;
  }

  private void scheduleBookmark(
      ResourceType type, String version, WatchSink sink, AtomicBoolean open) {
    scheduler.schedule(
        bookmarkMillis,
        () -> {
          if (!open.get()) {
            return;
          }
          // under the store's lock, so the bookmark follows every event up to its version
          store.atVisibleVersion(rv -> sink.send(line("BOOKMARK", bookmarkAt(type, version, rv))));
          scheduleBookmark(type, version, sink, open);
        });
  }

  private static long parseVersion(String rv) {
    try {
      return Long.parseLong(rv);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("invalid resourceVersion: " + rv);
    }
  }

  private String line(String type, JsonNode object) {
    ObjectNode event = json.createObjectNode();
    event.put("type", type);
    event.set("object", object);
    try {
      return json.writeValueAsString(event) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
