package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No single request leaves the state directory unable to start: what cannot be read back is refused
 * on every write path (POST, PUT, each patch type, apply) exactly as on create, and a start-up that
 * meets a bad row names it and still serves. Also the data and exposure rules of the state
 * directory.
 */
class StateDirectoryBrickingIT {

  @TempDir Path dir;

  private static final String CM = "/api/v1/namespaces/default/configmaps";

  private EmbeddedApiServer start() {
    return EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()));
  }

  private static String configMap(String name) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
        + name
        + "\"},\"data\":{\"a\":\"b\"}}";
  }

  private static String nested(int depth) {
    return "{\"x\":".repeat(depth) + "1" + "}".repeat(depth);
  }

  /** Every write path with a hostile object; each must be refused and nothing stored. */
  @Test
  void hostileObjectsAreRefusedOnEveryWritePathAndARestartServesEverythingAcknowledged() {
    String longKey = "a".repeat(60_000);
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      assertThat(api.post(CM, configMap("keep")).code()).isEqualTo(201);
      // the JSON patch of the report: a 60,000-character annotation key
      RawApi.Answer patched =
          api.send(
              "PATCH",
              CM + "/keep",
              Patches.JSON_PATCH,
              "[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{}},"
                  + "{\"op\":\"add\",\"path\":\"/metadata/annotations/"
                  + longKey
                  + "\",\"value\":\"v\"}]");
      assertThat(patched.code()).as(patched.body()).isEqualTo(422);
      assertThat(patched.body()).contains("metadata.annotations", "name part must be");
      // the same key through a merge patch, a PUT, apply and a create
      String annotated =
          "{\"metadata\":{\"name\":\"keep\",\"annotations\":{\"" + longKey + "\":\"v\"}}}";
      assertThat(api.send("PATCH", CM + "/keep", Patches.MERGE_PATCH, annotated).code())
          .isEqualTo(422);
      assertThat(api.send("PATCH", CM + "/keep", Patches.STRATEGIC_MERGE_PATCH, annotated).code())
          .isEqualTo(422);
      // (YAML, like the real server's reader, takes no implicit key over 1,024 characters: 400)
      assertThat(
              api.send("PATCH", CM + "/keep?fieldManager=t", Patches.APPLY_PATCH, annotated).code())
          .isIn(400, 422);
      assertThat(api.send("PUT", CM + "/keep", "application/json", annotated).code())
          .isEqualTo(422);
      assertThat(api.post(CM, annotated.replace("\"keep\"", "\"other\"")).code()).isEqualTo(422);
      // bodies nested 997 deep (the report's 997–999) on create, PUT and patch
      String deep = "{\"metadata\":{\"name\":\"deep\"},\"data\":{},\"extra\":" + nested(990) + "}";
      RawApi.Answer created = api.post(CM, deep);
      assertThat(created.code()).isEqualTo(422);
      assertThat(created.body()).contains("Too deep");
      assertThat(
              api.send(
                      "PATCH", CM + "/keep", Patches.MERGE_PATCH, "{\"extra\":" + nested(990) + "}")
                  .code())
          .isEqualTo(422);
      // names: a 300-character namespace, and a name apply would store that POST refuses
      RawApi.Answer longNs =
          api.post(
              "/api/v1/namespaces",
              "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                  + "n".repeat(300)
                  + "\"}}");
      assertThat(longNs.code()).isEqualTo(422);
      assertThat(longNs.body()).contains("must be no more than 63 characters");
      assertThat(
              api.send(
                      "PATCH",
                      "/api/v1/namespaces/" + "n".repeat(300) + "?fieldManager=t",
                      Patches.APPLY_PATCH,
                      "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\"}")
                  .code())
          .isEqualTo(422);
      assertThat(
              api.send(
                      "PATCH",
                      CM + "/Bad_Name?fieldManager=t",
                      Patches.APPLY_PATCH,
                      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{}}")
                  .code())
          .isEqualTo(422);
      // a create in a namespace that does not exist
      RawApi.Answer missingNs = api.post("/api/v1/namespaces/nowhere/configmaps", configMap("x"));
      assertThat(missingNs.code()).isEqualTo(404);
      assertThat(missingNs.body()).contains("namespaces \\\"nowhere\\\" not found");
      // lists and watches still work
      assertThat(api.get(CM).json().path("items")).hasSize(1);
    }
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      assertThat(api.get(CM + "/keep").code()).isEqualTo(200);
      assertThat(api.get(CM).json().path("items")).hasSize(1);
    }
  }

  @Test
  void aLoneSurrogateIsStoredAsAReplacementCharacterSoARestartServesWhatWasAcknowledged() {
    String acknowledged;
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      RawApi.Answer created =
          api.post(
              CM,
              "{\"metadata\":{\"name\":\"s\"},\"data\":{\"k\":\"a\\ud800b\",\"pair\":\"\\ud83d\\ude00\"}}");
      assertThat(created.code()).isEqualTo(201);
      acknowledged = created.json().path("data").toString();
      assertThat(acknowledged).isEqualTo("{\"k\":\"a\uFFFDb\",\"pair\":\"\uD83D\uDE00\"}");
    }
    try (EmbeddedApiServer server = start()) {
      assertThat(new RawApi(server).get(CM + "/s").json().path("data").toString())
          .isEqualTo(acknowledged);
    }
  }

  @Test
  void aRowThatCannotBeReadBackIsNamedAndSetAsideAndEverythingElseIsServed() throws Exception {
    try (EmbeddedApiServer server = start()) {
      assertThat(new RawApi(server).post(CM, configMap("good")).code()).isEqualTo(201);
    }
    try (SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"))) {
      db.put("/configmaps", "default", "broken", 999, "{\"metadata\":{\"name\":");
      db.put(
          "/configmaps",
          "n".repeat(300),
          "long",
          1000,
          "{\"metadata\":{\"name\":\"long\",\"namespace\":\"" + "n".repeat(300) + "\"}}");
      // rows no commit wrote: one nested deeper than any commit stores, one with an escaped lone
      // surrogate, which a commit replaces
      db.put(
          "/configmaps",
          "default",
          "deep",
          1001,
          "{\"metadata\":{\"name\":\"deep\",\"namespace\":\"default\"},\"data\":"
              + "[".repeat(CommitGuard.MAX_DEPTH)
              + "]".repeat(CommitGuard.MAX_DEPTH)
              + "}");
      db.put(
          "/configmaps",
          "default",
          "hand",
          1002,
          "{\"metadata\":{\"name\":\"hand\",\"namespace\":\"default\"},\"data\":{\"k\":\"a\\ud800b\"}}");
    }
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      assertThat(api.get(CM + "/good").code()).isEqualTo(200);
      assertThat(api.get(CM + "/broken").code()).isEqualTo(404);
      assertThat(api.get(CM + "/deep").code()).isEqualTo(404);
      assertThat(api.get(CM + "/hand").json().path("data").path("k").asText())
          .isEqualTo("a\uFFFDb");
      assertThat(api.post(CM, configMap("broken")).code()).isEqualTo(201);
    }
    try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        var rs =
            c.createStatement().executeQuery("SELECT name, reason FROM quarantine ORDER BY name")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("broken");
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("deep");
      assertThat(rs.getString(2)).contains("Too deep");
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("long");
      assertThat(rs.getString(2)).contains("metadata.namespace");
    }
  }

  @Test
  void aDatabaseThatLostItsSchemaIsRefusedNotStartedEmpty() throws Exception {
    try (EmbeddedApiServer server = start()) {
      assertThat(new RawApi(server).post(CM, configMap("precious")).code()).isEqualTo(201);
    }
    Files.write(dir.resolve("state.db"), new byte[0]);
    Files.deleteIfExists(dir.resolve("state.db-wal"));
    assertThatThrownBy(this::start)
        .isInstanceOf(StateStoreException.class)
        .hasMessageContaining("lost its schema")
        .hasMessageContaining("state.db");
  }

  @Test
  void onlyTheOwnerCanReadTheStateDirectory() throws Exception {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (EmbeddedApiServer server = start()) {
      new RawApi(server).post(CM, configMap("secret"));
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
          .isEqualTo("rwx------");
      for (String f : List.of("state.db", "state.db-wal", "state.db-shm", "kubeconfig")) {
        if (Files.exists(dir.resolve(f))) {
          assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(f))))
              .as(f)
              .isEqualTo("rw-------");
        }
      }
    }
  }

  @Test
  void systemNamespacesAndTheNamespaceCollectionCannotBeDeleted() {
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      api.post(CM, configMap("stays"));
      RawApi.Answer one = api.send("DELETE", "/api/v1/namespaces/default", null, new byte[0]);
      assertThat(one.code()).isEqualTo(403);
      assertThat(one.body()).contains("this namespace may not be deleted");
      assertThat(api.send("DELETE", "/api/v1/namespaces", null, new byte[0]).code()).isEqualTo(405);
      assertThat(api.get(CM + "/stays").code()).isEqualTo(200);
    }
  }

  @Test
  void deletePreconditionsAndAnUpdateForAnotherUidConflict() {
    try (EmbeddedApiServer server = start()) {
      RawApi api = new RawApi(server);
      RawApi.Answer created = api.post(CM, configMap("p"));
      String uid = created.json().path("metadata").path("uid").asText();
      String rv = created.json().path("metadata").path("resourceVersion").asText();
      RawApi.Answer wrongUid =
          api.send(
              "DELETE",
              CM + "/p",
              "application/json",
              "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":{\"uid\":\"other\"}}");
      assertThat(wrongUid.code()).isEqualTo(409);
      assertThat(wrongUid.body()).contains("Precondition failed: UID in precondition: other");
      assertThat(
              api.send(
                      "DELETE",
                      CM + "/p",
                      "application/json",
                      "{\"preconditions\":{\"resourceVersion\":\"1\"}}")
                  .code())
          .isEqualTo(409);
      RawApi.Answer put =
          api.send(
              "PUT",
              CM + "/p",
              "application/json",
              "{\"metadata\":{\"name\":\"p\",\"uid\":\"other\"},\"data\":{}}");
      assertThat(put.code()).isEqualTo(409);
      assertThat(api.get(CM + "/p").json().path("data").path("a").asText()).isEqualTo("b");
      assertThat(
              api.send(
                      "DELETE",
                      CM + "/p",
                      "application/json",
                      "{\"preconditions\":{\"uid\":\""
                          + uid
                          + "\",\"resourceVersion\":\""
                          + rv
                          + "\"}}")
                  .code())
          .isEqualTo(200);
    }
  }
}
