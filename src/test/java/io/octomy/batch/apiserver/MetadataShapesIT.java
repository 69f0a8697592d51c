package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata of a type no typed reader reads (the controller's informer stopped on an {@code
 * ownerReferences} of {@code "x"}) is refused with 422 on every write verb, for custom and built-in
 * resources alike; a row of that shape already in a state database is set aside at start-up and
 * everything else is served.
 */
class MetadataShapesIT {

  @TempDir Path dir;

  private static final String BJS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";
  private static final String CMS = "/api/v1/namespaces/default/configmaps";
  private static final String JOB =
      "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
          + "\"NAME\"META},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
          + "\"command\":[\"true\"]}]}}}}";
  private static final String CONFIG_MAP =
      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"NAME\"META},"
          + "\"data\":{\"a\":\"b\"}}";

  /** Metadata fields (JSON, after the name) that a typed reader cannot read. */
  private static final List<String> BAD =
      List.of(
          "\"ownerReferences\":\"x\"",
          "\"ownerReferences\":[1]",
          "\"ownerReferences\":{\"name\":\"p\"}",
          "\"ownerReferences\":[{\"name\":\"p\"}]",
          "\"labels\":[\"a\"]",
          "\"annotations\":{\"a\":{}}",
          "\"finalizers\":\"x\"",
          "\"managedFields\":\"x\"",
          "\"generateName\":{}");

  private EmbeddedApiServer start() {
    return EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds());
  }

  @Test
  void everyWriteVerbRefusesEveryUnreadableShapeAndNothingIsStored() {
    List<String> wrong = new ArrayList<>();
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      for (String[] kind : List.of(new String[] {BJS, JOB}, new String[] {CMS, CONFIG_MAP})) {
        String coll = kind[0];
        String body = kind[1];
        assertThat(api.post(coll, object(body, "keep", "")).code()).isEqualTo(201);
        for (String bad : BAD) {
          String meta = "{\"metadata\":{" + bad + "}}";
          String fieldManager = "?fieldManager=shapes";
          expect422(wrong, "POST " + bad, api.post(coll, object(body, "other", bad)));
          expect422(
              wrong,
              "PUT " + bad,
              api.send("PUT", coll + "/keep", "application/json", object(body, "keep", bad)));
          expect422(
              wrong, "merge " + bad, api.send("PATCH", coll + "/keep", Patches.MERGE_PATCH, meta));
          String field = bad.substring(1, bad.indexOf('"', 1));
          String value = bad.substring(bad.indexOf(':') + 1);
          expect422(
              wrong,
              "json " + bad,
              api.send(
                  "PATCH",
                  coll + "/keep",
                  Patches.JSON_PATCH,
                  "[{\"op\":\"add\",\"path\":\"/metadata/"
                      + field
                      + "\",\"value\":"
                      + value
                      + "}]"));
          if (coll.equals(CMS)) {
            expect422(
                wrong,
                "strategic " + bad,
                api.send("PATCH", coll + "/keep", Patches.STRATEGIC_MERGE_PATCH, meta));
          }
          if (bad.contains("managedFields")) {
            continue; // apply keeps the server's managedFields and drops the body's, whatever shape
          }
          expect422(
              wrong,
              "apply " + bad,
              api.send(
                  "PATCH",
                  coll + "/keep" + fieldManager,
                  Patches.APPLY_PATCH,
                  object(body, "keep", bad)));
          expect422(
              wrong,
              "apply-create " + bad,
              api.send(
                  "PATCH",
                  coll + "/made" + fieldManager,
                  Patches.APPLY_PATCH,
                  object(body, "made", bad)));
        }
        assertThat(wrong).as("writes not refused with 422 Invalid").isEmpty();
        assertThat(api.get(coll).json().path("items")).as(coll).hasSize(1);
        assertThat(api.get(coll + "/keep").json().path("metadata").has("ownerReferences"))
            .isFalse();
      }
      RawApi.Answer notAMapping =
          api.send("PATCH", BJS + "/keep", Patches.MERGE_PATCH, "{\"metadata\":\"x\"}");
      expect422(wrong, "metadata \"x\"", notAMapping);
    }
    assertThat(wrong).as("writes not refused with 422 Invalid").isEmpty();
  }

  @Test
  void theRefusalNamesTheFieldAndSaysWhatToWrite() {
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      assertThat(api.post(BJS, object(JOB, "keep", "")).code()).isEqualTo(201);
      RawApi.Answer a =
          api.send(
              "PATCH",
              BJS + "/keep",
              Patches.MERGE_PATCH,
              "{\"metadata\":{\"ownerReferences\":\"x\"}}");
      assertThat(a.code()).isEqualTo(422);
      assertThat(a.reason()).isEqualTo("Invalid");
      assertThat(a.json().path("details").path("causes").get(0).path("field").asText())
          .isEqualTo("metadata.ownerReferences");
      assertThat(a.json().path("message").asText())
          .contains(
              "metadata.ownerReferences: Invalid value: \"string\": must be of type array",
              "write a list like [{apiVersion:");
    }
  }

  @Test
  void aStoredRowOfAnUnreadableShapeIsSetAsideAtStartAndTheRestIsServed() throws Exception {
    try (EmbeddedApiServer server = start()) {
      assertThat(new RawApi(server).post(BJS, object(JOB, "good", "")).code()).isEqualTo(201);
    }
    try (SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"))) {
      String bad = object(JOB, "owned", "\"namespace\":\"default\",\"ownerReferences\":\"x\"");
      db.put("/batch.octomy.io/batchjobs", "default", "owned", 9_000, bad);
      db.put(
          "/configmaps",
          "default",
          "managed",
          9_001,
          object(CONFIG_MAP, "managed", "\"namespace\":\"default\",\"managedFields\":[1]"));
    }
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      assertThat(api.get(BJS + "/good").code()).isEqualTo(200);
      assertThat(api.get(BJS + "/owned").code()).isEqualTo(404);
      assertThat(api.get(CMS + "/managed").code()).isEqualTo(404);
      assertThat(api.get(BJS).json().path("items")).hasSize(1);
    }
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        var rs =
            c.createStatement().executeQuery("SELECT name, reason FROM quarantine ORDER BY name")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("managed");
      assertThat(rs.getString(2)).contains("metadata.managedFields[0]");
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("owned");
      assertThat(rs.getString(2)).contains("metadata.ownerReferences");
    }
  }

  private static String object(String template, String name, String extraMetadata) {
    return template
        .replace("NAME", name)
        .replace("META", extraMetadata.isEmpty() ? "" : "," + extraMetadata);
  }

  private static void expect422(List<String> wrong, String what, RawApi.Answer a) {
    if (a.code() != 422 || !a.body().contains("\"Invalid\"")) {
      wrong.add(what + ": " + a.code() + " " + a.body());
    }
  }
}
