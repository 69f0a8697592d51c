package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One set of Events served in core v1 and events.k8s.io/v1, as a real API server serves them: an
 * Event written through either API is read, listed, selected, watched, patched and deleted through
 * the other, converted, with one uid and one resourceVersion sequence; and Events an earlier
 * release kept apart under events.k8s.io's own key join the set at start, or are quarantined, never
 * lost.
 */
class EventsInBothVersionsIT {

  private static final String NS = "default";
  private static final String CORE = "/api/v1/namespaces/" + NS + "/events";
  private static final String EVENTS_V1 = "/apis/events.k8s.io/v1/namespaces/" + NS + "/events";

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
  void aCoreEventIsAnEventsV1EventAndTheOtherWayRound() {
    JsonNode core =
        created(
            api.post(
                CORE,
                """
                {"apiVersion":"v1","kind":"Event","metadata":{"name":"solve-a.waiting"},
                 "involvedObject":{"kind":"BatchJob","name":"solve-a","namespace":"default"},
                 "reason":"WaitingForCapacity","message":"need 2000","type":"Normal",
                 "source":{"component":"octomy-batch-controller"},"count":3,
                 "firstTimestamp":"2025-01-01T00:00:00Z","lastTimestamp":"2025-01-01T00:01:00Z"}
                """));
    JsonNode asEventsV1 = ok(api.get(EVENTS_V1 + "/solve-a.waiting"));
    assertThat(asEventsV1.path("apiVersion").asText()).isEqualTo("events.k8s.io/v1");
    assertThat(asEventsV1.path("note").asText()).isEqualTo("need 2000");
    assertThat(asEventsV1.path("regarding").path("name").asText()).isEqualTo("solve-a");
    assertThat(asEventsV1.path("deprecatedCount").asInt()).isEqualTo(3);
    assertThat(asEventsV1.path("deprecatedSource").path("component").asText())
        .isEqualTo("octomy-batch-controller");
    assertThat(asEventsV1.path("deprecatedLastTimestamp").asText())
        .isEqualTo("2025-01-01T00:01:00Z");
    assertThat(asEventsV1.has("message")).isFalse();
    assertThat(asEventsV1.path("metadata").path("uid"))
        .isEqualTo(core.path("metadata").path("uid"));
    assertThat(asEventsV1.path("metadata").path("resourceVersion"))
        .isEqualTo(core.path("metadata").path("resourceVersion"));

    JsonNode eventsV1 =
        created(
            api.post(
                EVENTS_V1,
                """
                {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"render-c.started"},
                 "regarding":{"kind":"BatchJob","name":"render-c","namespace":"default"},
                 "reason":"Started","note":"started on ws-7","type":"Normal","action":"Start",
                 "eventTime":"2025-01-01T00:00:00.000000Z","reportingController":"octomy.io/agent",
                 "reportingInstance":"ws-7"}
                """));
    assertThat(version(eventsV1)).isGreaterThan(version(core));
    JsonNode asCore = ok(api.get(CORE + "/render-c.started"));
    assertThat(asCore.path("apiVersion").asText()).isEqualTo("v1");
    assertThat(asCore.path("message").asText()).isEqualTo("started on ws-7");
    assertThat(asCore.path("involvedObject").path("name").asText()).isEqualTo("render-c");
    assertThat(asCore.path("reportingComponent").asText()).isEqualTo("octomy.io/agent");
    assertThat(asCore.path("reportingInstance").asText()).isEqualTo("ws-7");
    assertThat(asCore.path("action").asText()).isEqualTo("Start");
    assertThat(asCore.path("eventTime").asText()).isEqualTo("2025-01-01T00:00:00.000000Z");
    assertThat(asCore.path("source").isObject()).isTrue();
    assertThat(asCore.path("firstTimestamp").isNull()).isTrue();

    assertThat(names(ok(api.get(CORE)))).contains("solve-a.waiting", "render-c.started");
    assertThat(names(ok(api.get(EVENTS_V1)))).contains("solve-a.waiting", "render-c.started");
    assertThat(api.post(CORE, "{\"metadata\":{\"name\":\"render-c.started\"}}").code())
        .as("one key space: the name is taken in both versions")
        .isEqualTo(409);
  }

  @Test
  void fieldSelectorsOfEachVersionSelectTheSameEvents() {
    created(
        api.post(
            EVENTS_V1,
            """
            {"metadata":{"name":"sel-a"},"regarding":{"kind":"BatchJob","name":"sel-job","namespace":"default"},
             "reason":"Started","type":"Warning","reportingController":"octomy.io/sel",
             "reportingInstance":"i","action":"A","eventTime":"2025-01-01T00:00:00.000000Z"}
            """));
    created(
        api.post(
            CORE,
            """
            {"metadata":{"name":"sel-b"},"involvedObject":{"kind":"BatchJob","name":"sel-job","namespace":"default"},
             "reason":"Waiting","type":"Normal","source":{"component":"octomy-batch-controller"}}
            """));
    assertThat(names(ok(api.get(EVENTS_V1 + "?fieldSelector=regarding.name%3Dsel-job"))))
        .containsExactly("sel-a", "sel-b");
    assertThat(names(ok(api.get(CORE + "?fieldSelector=involvedObject.name%3Dsel-job"))))
        .containsExactly("sel-a", "sel-b");
    assertThat(
            names(
                ok(
                    api.get(
                        EVENTS_V1
                            + "?fieldSelector=reportingController%3Doctomy.io/sel,type%3DWarning"))))
        .containsExactly("sel-a");
    assertThat(names(ok(api.get(CORE + "?fieldSelector=source%3Doctomy.io/sel"))))
        .as("a core Event's source falls back on its reporting component")
        .containsExactly("sel-a");
    RawApi.Answer refused = api.get(EVENTS_V1 + "?fieldSelector=involvedObject.name%3Dsel-job");
    assertThat(refused.code()).isEqualTo(400);
    assertThat(refused.json().path("message").asText())
        .isEqualTo("field label not supported: involvedObject.name");
    assertThat(api.get(CORE + "?fieldSelector=regarding.name%3Dsel-job").code()).isEqualTo(400);
  }

  @Test
  void aWriteInOneVersionIsWatchedPatchedAndDeletedInTheOther() {
    JsonNode first =
        created(
            api.post(
                CORE,
                """
                {"metadata":{"name":"watched"},"involvedObject":{"kind":"BatchJob","name":"w","namespace":"default"},
                 "reason":"Waiting","message":"first"}
                """));
    String from = first.path("metadata").path("resourceVersion").asText();

    RawApi.Answer merged =
        api.send(
            "PATCH",
            EVENTS_V1 + "/watched",
            "application/merge-patch+json",
            "{\"metadata\":{\"labels\":{\"seen\":\"yes\"}},"
                + "\"series\":{\"count\":2,\"lastObservedTime\":\"2025-01-01T00:10:00.000000Z\"}}");
    assertThat(merged.code()).as(merged.body()).isEqualTo(200);
    assertThat(merged.json().path("note").asText()).isEqualTo("first");
    JsonNode core = ok(api.get(CORE + "/watched"));
    assertThat(core.path("series").path("count").asInt()).isEqualTo(2);
    assertThat(core.path("metadata").path("labels").path("seen").asText()).isEqualTo("yes");

    RawApi.Answer immutable =
        api.send(
            "PATCH",
            EVENTS_V1 + "/watched",
            "application/merge-patch+json",
            "{\"note\":\"changed\"}");
    assertThat(immutable.code()).as(immutable.body()).isEqualTo(422);
    assertThat(immutable.json().path("message").asText())
        .isEqualTo(
            "Event.events.k8s.io \"watched\" is invalid: message: Invalid value: \"changed\": field"
                + " is immutable");

    RawApi.Answer strategic =
        api.send(
            "PATCH",
            CORE + "/watched",
            "application/strategic-merge-patch+json",
            "{\"message\":\"second\"}");
    assertThat(strategic.code()).as(strategic.body()).isEqualTo(200);
    assertThat(ok(api.get(EVENTS_V1 + "/watched")).path("note").asText()).isEqualTo("second");

    RawApi.Answer deleted = api.send("DELETE", EVENTS_V1 + "/watched", null, new byte[0]);
    assertThat(deleted.code()).as(deleted.body()).isEqualTo(200);
    assertThat(deleted.json().path("note").asText()).isEqualTo("second");
    assertThat(api.get(CORE + "/watched").code()).isEqualTo(404);

    RawApi.Answer watch =
        api.get(
            EVENTS_V1
                + "?watch=true&timeoutSeconds=1&fieldSelector=regarding.name%3Dw&resourceVersion="
                + from);
    assertThat(watch.code()).isEqualTo(200);
    List<JsonNode> lines = lines(watch.body());
    assertThat(lines)
        .extracting(l -> l.path("type").asText())
        .containsExactly("MODIFIED", "MODIFIED", "DELETED");
    assertThat(lines)
        .extracting(l -> l.path("object").path("note").asText())
        .containsExactly("first", "second", "second");
    assertThat(lines)
        .allSatisfy(
            l ->
                assertThat(l.path("object").path("apiVersion").asText())
                    .isEqualTo("events.k8s.io/v1"));
  }

  @Test
  void eachVersionChecksAWriteAsTheRealServerDoes() {
    RawApi.Answer untimed =
        api.post(
            EVENTS_V1,
            """
            {"metadata":{"name":"untimed"},"regarding":{"kind":"BatchJob","name":"j","namespace":"default"},
             "reason":"Started","note":"no eventTime","type":"Normal","deprecatedCount":2}
            """);
    assertThat(untimed.code()).as(untimed.body()).isEqualTo(422);
    assertThat(untimed.json().path("message").asText())
        .isEqualTo(
            "Event.events.k8s.io \"untimed\" is invalid: [eventTime: Required value, count:"
                + " Invalid value: \"\": needs to be unset]");
    RawApi.Answer elsewhere =
        api.post(
            CORE,
            """
            {"metadata":{"name":"elsewhere"},"reason":"Started",
             "involvedObject":{"kind":"BatchJob","name":"j","namespace":"other"}}
            """);
    assertThat(elsewhere.code()).as(elsewhere.body()).isEqualTo(422);
    assertThat(elsewhere.json().path("message").asText())
        .isEqualTo(
            "Event \"elsewhere\" is invalid: involvedObject.namespace: Invalid value: \"other\":"
                + " does not match event.namespace");
    assertThat(api.get(CORE + "/untimed").code()).isEqualTo(404);
    assertThat(api.get(CORE + "/elsewhere").code()).isEqualTo(404);
  }

  @Test
  void eventsKeptApartByAnEarlierReleaseJoinTheOneSetAtStart(@TempDir Path old) throws Exception {
    try (SqliteStateStore db = SqliteStateStore.open(old.resolve("state.db"))) {
      db.put(
          "/namespaces",
          "",
          "default",
          1,
          "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\","
              + "\"uid\":\"n\",\"resourceVersion\":\"1\"}}");
      db.put(
          EventRowsMigration.FORMER_KEY,
          NS,
          "kept",
          2,
          "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"kept\","
              + "\"namespace\":\"default\",\"uid\":\"k\",\"resourceVersion\":\"2\"},"
              + "\"note\":\"from before\",\"regarding\":{\"kind\":\"BatchJob\",\"name\":\"j\"}}");
      db.put(
          "/events",
          NS,
          "both",
          3,
          "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"both\","
              + "\"namespace\":\"default\",\"uid\":\"c\",\"resourceVersion\":\"3\"},"
              + "\"message\":\"core\"}");
      db.put(
          EventRowsMigration.FORMER_KEY,
          NS,
          "both",
          4,
          "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"both\","
              + "\"namespace\":\"default\",\"uid\":\"e\",\"resourceVersion\":\"4\"},"
              + "\"note\":\"events.k8s.io\"}");
    }
    EmbeddedApiServer restarted = EmbeddedApiServer.start(old, 0, List.of());
    try {
      RawApi raw = new RawApi(restarted);
      JsonNode kept = ok(raw.get(CORE + "/kept"));
      assertThat(kept.path("message").asText()).isEqualTo("from before");
      assertThat(kept.path("involvedObject").path("name").asText()).isEqualTo("j");
      assertThat(kept.path("metadata").path("resourceVersion").asText()).isEqualTo("2");
      assertThat(ok(raw.get(EVENTS_V1 + "/both")).path("note").asText()).isEqualTo("core");
      JsonNode next = created(raw.post(CORE, "{\"metadata\":{\"name\":\"after\"}}"));
      assertThat(version(next)).as("the counter is not moved back").isGreaterThan(4);
    } finally {
      restarted.close();
    }
    try (SqliteStateStore db = SqliteStateStore.open(old.resolve("state.db"))) {
      assertThat(db.loadResource(EventRowsMigration.FORMER_KEY)).isEmpty();
      assertThat(quarantined(old)).containsExactly("both events.k8s.io");
    }
  }

  /** Name and note of each quarantined row, read with plain JDBC. */
  private static List<String> quarantined(Path dir) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT name, body FROM quarantine")) {
      while (rs.next()) {
        out.add(
            rs.getString(1)
                + " "
                + new ObjectMapper().readTree(rs.getString(2)).path("note").asText());
      }
    }
    return out;
  }

  private static long version(JsonNode o) {
    return o.path("metadata").path("resourceVersion").asLong();
  }

  private static JsonNode created(RawApi.Answer a) {
    assertThat(a.code()).as(a.body()).isEqualTo(201);
    return a.json();
  }

  private static JsonNode ok(RawApi.Answer a) {
    assertThat(a.code()).as(a.body()).isEqualTo(200);
    return a.json();
  }

  private static List<String> names(JsonNode list) {
    List<String> out = new ArrayList<>();
    list.path("items").forEach(i -> out.add(i.path("metadata").path("name").asText()));
    return out;
  }

  private static List<JsonNode> lines(String body) {
    List<JsonNode> out = new ArrayList<>();
    for (String line : body.split("\n")) {
      if (!line.isBlank()) {
        out.add(new RawApi.Answer(200, line).json());
      }
    }
    return out;
  }
}
