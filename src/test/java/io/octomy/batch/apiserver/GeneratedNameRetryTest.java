package io.octomy.batch.apiserver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A create with {@code generateName} whose drawn name is taken draws again, up to eight names in
 * all, as kube-apiserver does; only then is it refused with 409 AlreadyExists. The names are drawn
 * from a scripted source so that a collision happens on purpose.
 */
class GeneratedNameRetryTest {

  private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

  private final ObjectMapper json = new ObjectMapper();
  private final ResourceRegistry registry = new ResourceRegistry();
  private final ScriptedNames names = new ScriptedNames();

  @TempDir Path dir;
  private ObjectStore store;
  private ResourceHandler handler;

  @BeforeEach
  void open() {
    store = HandlerFixture.store(dir, json);
    handler =
        HandlerFixture.handler(
            store, json, new ObjectRules(Clock.systemUTC(), names), CreateFinalizers.none());
    post("/api/v1/namespaces", "{\"metadata\":{\"name\":\"default\"}}");
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void aTakenGeneratedNameIsDrawnAgain() {
    names.draw(0, 0, 1);
    assertThat(createGenerated()).isEqualTo("cm-bbbbb");

    assertThat(createGenerated()).isEqualTo("cm-ccccc");

    assertThat(storedNames()).containsExactlyInAnyOrder("cm-bbbbb", "cm-ccccc");
  }

  @Test
  void theEighthNameIsStillTried() {
    names.draw(0, 0, 0, 0, 0, 0, 0, 0, 2);
    createGenerated();

    assertThat(createGenerated()).isEqualTo("cm-ddddd");
  }

  @Test
  void eightTakenNamesInARowAreRefusedAsAlreadyExists() {
    names.draw(0, 0, 0, 0, 0, 0, 0, 0, 0, 3);
    createGenerated();

    assertThatThrownBy(this::createGenerated)
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409))
        .hasMessageContaining("already exists");
    assertThat(names.left()).as("no ninth name drawn").containsExactly(3);
    assertThat(storedNames()).containsExactly("cm-bbbbb");
  }

  @Test
  void aTakenGivenNameIsRefusedAtOnce() {
    post(CONFIGMAPS, "{\"metadata\":{\"name\":\"fixed\"}}");

    assertThatThrownBy(() -> post(CONFIGMAPS, "{\"metadata\":{\"name\":\"fixed\"}}"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
  }

  private String createGenerated() {
    JsonNode created = post(CONFIGMAPS, "{\"metadata\":{\"generateName\":\"cm-\"}}");
    return created.path("metadata").path("name").asText();
  }

  private List<String> storedNames() {
    return store.list("/configmaps", "default").items().stream()
        .map(o -> o.path("metadata").path("name").asText())
        .toList();
  }

  private JsonNode post(String path, String body) {
    ApiRequest req =
        new ApiRequest("POST", path, Map.of(), "", "application/json", body.getBytes(UTF_8));
    RequestPath p = RequestPath.parse(path, registry).orElseThrow();
    ResourceType type = registry.find("", "v1", p.plural()).orElseThrow();
    ApiResponse response = handler.handle(req, p, type);
    assertThat(response.status()).isEqualTo(201);
    try {
      return json.readTree(response.bytes());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Draws whole names: each scripted number gives the same character five times (0 is 'b', the
   * first of the server's name characters).
   */
  private static final class ScriptedNames extends Random {
    private final Deque<Integer> script = new ArrayDeque<>();
    private int drawnOfThisName;

    void draw(Integer... characters) {
      script.addAll(List.of(characters));
    }

    List<Integer> left() {
      return List.copyOf(script);
    }

    @Override
    public int nextInt(int bound) {
      int character = script.getFirst();
      if (++drawnOfThisName == 5) {
        drawnOfThisName = 0;
        script.removeFirst();
      }
      return character;
    }
  }
}
