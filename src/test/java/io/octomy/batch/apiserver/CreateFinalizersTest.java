package io.octomy.batch.apiserver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A finalizer the server puts on new objects ({@link CreateFinalizers}) is on the first version
 * stored, whichever way the object was created, and belongs to the server's manager, so that the
 * creator's later apply without it leaves it on. ConfigMaps stand in for BatchJobs here: the rule
 * is the resource's, not the kind's.
 */
class CreateFinalizersTest {

  private static final String HELD = "example.com/held";
  private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
  private static final String APPLY = "application/apply-patch+yaml";

  private final ObjectMapper json = new ObjectMapper();
  private final ResourceRegistry registry = new ResourceRegistry();

  @TempDir Path dir;
  private ObjectStore store;
  private ResourceHandler handler;

  @BeforeEach
  void open() {
    store = HandlerFixture.store(dir, json);
    handler =
        HandlerFixture.handler(
            store,
            json,
            new ObjectRules(Clock.systemUTC()),
            CreateFinalizers.of("", "configmaps", HELD));
    send(
        "POST",
        "/api/v1/namespaces",
        Map.of(),
        "application/json",
        "{\"metadata\":{\"name\":\"default\"}}");
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void aCreatedObjectCarriesTheFinalizerOwnedByTheServer() {
    JsonNode created = create("{\"metadata\":{\"name\":\"a\"},\"data\":{\"k\":\"v\"}}");

    assertThat(finalizers(created)).containsExactly(HELD);
    assertThat(finalizers(stored("a"))).as("stored as answered").containsExactly(HELD);
    assertThat(owners(stored("a"), "f:metadata", "f:finalizers", "v:\"" + HELD + "\""))
        .containsExactly(CreateFinalizers.MANAGER);
    assertThat(owners(stored("a"), "f:data", "f:k")).containsExactly("creator");
  }

  @Test
  void theCreatorsOwnFinalizersStayFirst() {
    JsonNode created =
        create("{\"metadata\":{\"name\":\"a\",\"finalizers\":[\"example.com/theirs\"]}}");

    assertThat(finalizers(created)).containsExactly("example.com/theirs", HELD);
    assertThat(owners(created, "f:metadata", "f:finalizers", "v:\"example.com/theirs\""))
        .containsExactly("creator");
  }

  @Test
  void aCreateThatListsItAlreadyKeepsOneCopyOwnedByTheCreator() {
    JsonNode created = create("{\"metadata\":{\"name\":\"a\",\"finalizers\":[\"" + HELD + "\"]}}");

    assertThat(finalizers(created)).containsExactly(HELD);
    assertThat(owners(created, "f:metadata", "f:finalizers", "v:\"" + HELD + "\""))
        .containsExactly("creator");
  }

  @Test
  void aServerSideApplyThatCreatesGetsItAndItsNextApplyWithoutItLeavesItOn() {
    String config =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\ndata: {k: v}\n";
    JsonNode created = apply("a", config);
    assertThat(finalizers(created)).containsExactly(HELD);
    assertThat(owners(created, "f:metadata", "f:finalizers", "v:\"" + HELD + "\""))
        .containsExactly(CreateFinalizers.MANAGER);

    JsonNode reapplied = apply("a", config.replace("k: v", "k: w"));

    assertThat(reapplied.path("data").path("k").asText()).isEqualTo("w");
    assertThat(finalizers(reapplied)).containsExactly(HELD);
  }

  @Test
  void aReplaceWithoutItRemovesItAsOnAnyServer() {
    JsonNode created = create("{\"metadata\":{\"name\":\"a\"}}");
    String version = created.path("metadata").path("resourceVersion").asText();

    JsonNode replaced =
        send(
            "PUT",
            CONFIGMAPS + "/a",
            Map.of(),
            "application/json",
            "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"" + version + "\"}}");

    assertThat(finalizers(replaced)).isEmpty();
  }

  @Test
  void otherResourcesGetNone() {
    JsonNode secret =
        send(
            "POST",
            "/api/v1/namespaces/default/secrets",
            Map.of("fieldManager", "creator"),
            "application/json",
            "{\"metadata\":{\"name\":\"s\"}}");

    assertThat(finalizers(secret)).isEmpty();
  }

  private JsonNode create(String body) {
    return send("POST", CONFIGMAPS, Map.of("fieldManager", "creator"), "application/json", body);
  }

  private JsonNode apply(String name, String config) {
    return send("PATCH", CONFIGMAPS + "/" + name, Map.of("fieldManager", "flux"), APPLY, config);
  }

  private JsonNode stored(String name) {
    return store.get("/configmaps", "default", name);
  }

  private static List<String> finalizers(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.path("metadata").path("finalizers").forEach(f -> out.add(f.asText()));
    return out;
  }

  /** The managers whose managedFields entry holds the field at this path. */
  private static List<String> owners(JsonNode object, String... path) {
    List<String> out = new ArrayList<>();
    for (JsonNode entry : object.path("metadata").path("managedFields")) {
      JsonNode at = entry.path("fieldsV1");
      for (String step : path) {
        at = at.path(step);
      }
      if (!at.isMissingNode()) {
        out.add(entry.path("manager").asText());
      }
    }
    return out;
  }

  private JsonNode send(
      String method, String path, Map<String, String> query, String contentType, String body) {
    ApiRequest req = new ApiRequest(method, path, query, "", contentType, body.getBytes(UTF_8));
    RequestPath p = RequestPath.parse(path, registry).orElseThrow();
    ResourceType type = registry.find("", "v1", p.plural()).orElseThrow();
    ApiResponse response = handler.handle(req, p, type);
    assertThat(response.status()).as(method + " " + path).isIn(200, 201);
    try {
      return json.readTree(response.bytes());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
