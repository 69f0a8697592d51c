package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work the garbage collector did not get to before a stop is done at the next start, from the
 * owners and uids it reads off every stored object's metadata: a dependent whose only owner is gone
 * is deleted, one with another owner left loses only the reference to the gone one.
 */
class GarbageCollectorStartIT {

  private static final String MAPS = "/api/v1/namespaces/default/configmaps";

  @TempDir Path dir;

  @Test
  void aStartFinishesTheCollectionAStopLeftUndone() throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of())) {
      RawApi api = new RawApi(server);
      String gone = uid(api.post(MAPS, map("owner", "")));
      String other = uid(api.post(MAPS, map("other-owner", "")));
      uid(api.post(MAPS, map("dependent", reference("owner", gone))));
      uid(
          api.post(
              MAPS, map("kept", reference("owner", gone) + "," + reference("other-owner", other))));
    }
    // as if the server had stopped after deleting the owner, before collecting its dependents
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        PreparedStatement delete =
            db.prepareStatement("DELETE FROM objects WHERE resource = ? AND name = ?")) {
      delete.setString(1, "/configmaps");
      delete.setString(2, "owner");
      assertThat(delete.executeUpdate()).isEqualTo(1);
    }

    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, List.of())) {
      RawApi api = new RawApi(server);
      until(() -> api.get(MAPS + "/dependent").code() == 404);
      until(() -> owners(api.get(MAPS + "/kept").json()).equals(List.of("other-owner")));
      assertThat(api.get(MAPS + "/other-owner").code()).isEqualTo(200);
    }
  }

  private static String map(String name, String references) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
        + name
        + "\""
        + (references.isEmpty() ? "" : ",\"ownerReferences\":[" + references + "]")
        + "}}";
  }

  private static String reference(String name, String uid) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\""
        + name
        + "\",\"uid\":\""
        + uid
        + "\"}";
  }

  private static String uid(RawApi.Answer created) {
    assertThat(created.code()).as(created.body()).isEqualTo(201);
    return created.json().at("/metadata/uid").asText();
  }

  private static List<String> owners(JsonNode map) {
    List<String> names = new ArrayList<>();
    map.at("/metadata/ownerReferences").forEach(r -> names.add(r.path("name").asText()));
    return names;
  }

  private static void until(BooleanSupplier done) {
    Eventually.until(Duration.ofSeconds(10), "collected", done::getAsBoolean);
  }
}
