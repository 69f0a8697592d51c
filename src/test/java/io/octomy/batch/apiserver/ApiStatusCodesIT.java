package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad requests get the status code and {@code Status} reason a real kube-apiserver answers, and the
 * real server's request limits hold (body size, JSON patch operations and copies, paging).
 */
class ApiStatusCodesIT {

  @TempDir static Path dir;
  static EmbeddedApiServer server;
  static RawApi api;

  private static final String CM = "/api/v1/namespaces/default/configmaps";
  private static final String SAMPLES = "/apis/test.octomy.io/v1alpha1/namespaces/default/samples";

  @BeforeAll
  static void start() {
    server = EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()));
    api = new RawApi(server);
    for (String name : List.of("a", "b", "c", "d", "e")) {
      api.post(CM, "{\"metadata\":{\"name\":\"" + name + "\",\"labels\":{\"app\":\"x\"}}}");
    }
    api.post(SAMPLES, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"size\":1}}");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static void expect(RawApi.Answer a, int code, String reason) {
    assertThat(a.code()).as(a.body()).isEqualTo(code);
    assertThat(a.reason()).as(a.body()).isEqualTo(reason);
  }

  @Test
  void theUsersAndThisProcesssOwnCredentialsAreServedAndOnlyTheUsersIsWrittenDown()
      throws IOException {
    String inProcess = server.clientConfig().getOauthToken();
    assertThat(inProcess).isNotEqualTo(server.token());
    assertThat(new RawApi(server, inProcess).get(CM).code()).isEqualTo(200);
    assertThat(api.get(CM).code()).isEqualTo(200);
    expect(new RawApi(server, inProcess + "x").get(CM), 401, "Unauthorized");
    expect(new RawApi(server, "").get(CM), 401, "Unauthorized");
    String written;
    try (Stream<Path> files = Files.walk(dir)) {
      StringBuilder all = new StringBuilder();
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        all.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      }
      written = all.toString();
    }
    assertThat(written).as("the kubeconfig's token").contains(server.token());
    assertThat(written).as("the in-process token").doesNotContain(inProcess);
  }

  @Test
  void theInProcessCredentialOverHttpTakesTheUsersListener() {
    URI configured = URI.create(server.clientConfig().getMasterUrl());
    assertThat(configured.getScheme()).isEqualTo("https");
    assertThat(configured.getHost()).isEqualTo("127.0.0.1");
    assertThat(configured.getPort())
        .as("one listener: this process's controller and agent need none")
        .isEqualTo(server.port());
    String inProcess = server.clientConfig().getOauthToken();
    assertThat(new RawApi(server, inProcess).get(CM + "?watch=false").code()).isEqualTo(200);
  }

  @Test
  void malformedSelectorsAreBadRequestsForListsAndWatches() {
    expect(api.get(CM + "?labelSelector=app%20in%20x"), 400, "BadRequest");
    expect(api.get(CM + "?labelSelector=a%3D%3Db%3Dc"), 400, "BadRequest");
    expect(api.get(CM + "?labelSelector=%28"), 400, "BadRequest");
    expect(api.get(CM + "?watch=true&labelSelector=app%20in%20x"), 400, "BadRequest");
    expect(api.get(CM + "?fieldSelector=metadata.name"), 400, "BadRequest");
    assertThat(api.get(CM + "?labelSelector=app%20in%20(x,y),!gone").json().path("items"))
        .hasSize(5);
  }

  @Test
  void bodiesInOtherFormatsAreUnsupportedMediaTypes() {
    String body = "{\"metadata\":{\"name\":\"t\"}}";
    expect(api.send("POST", CM, "text/plain", body), 415, "UnsupportedMediaType");
    expect(api.send("POST", CM, "application/xml", body), 415, "UnsupportedMediaType");
    expect(api.send("PUT", CM + "/a", "text/plain", body), 415, "UnsupportedMediaType");
    expect(
        api.send("PATCH", SAMPLES + "/s", Patches.STRATEGIC_MERGE_PATCH, "{\"spec\":{}}"),
        415,
        "UnsupportedMediaType");
  }

  @Test
  void patchesThatCannotApplyOrMoveTheObjectAreRefused() {
    expect(
        api.send(
            "PATCH",
            CM + "/a",
            Patches.JSON_PATCH,
            "[{\"op\":\"test\",\"path\":\"/kind\",\"value\":\"Pod\"}]"),
        422,
        "Invalid");
    expect(
        api.send("PATCH", CM + "/a", Patches.APPLY_PATCH, "{\"data\":{\"x\":\"y\"}}"),
        422,
        "Invalid");
    expect(
        api.send("PATCH", CM + "/a", Patches.MERGE_PATCH, "{\"metadata\":{\"name\":\"zz\"}}"),
        400,
        "BadRequest");
    expect(
        api.send(
            "PUT",
            CM + "/a",
            "application/json",
            "{\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-system\"}}"),
        400,
        "BadRequest");
    assertThat(api.get(CM + "/a").json().path("metadata").path("namespace").asText())
        .isEqualTo("default");
  }

  @Test
  void jsonPatchMissingTargetsAndConfigMapSizeAreAnsweredAsOnARealServer() {
    expect(
        api.send(
            "PATCH",
            CM + "/c",
            Patches.JSON_PATCH,
            "[{\"op\":\"remove\",\"path\":\"/metadata/labels/absent\"}]"),
        422,
        "Invalid");
    RawApi.Answer replaced =
        api.send(
            "PATCH",
            CM + "/c",
            Patches.JSON_PATCH,
            "[{\"op\":\"replace\",\"path\":\"/metadata/labels/added\",\"value\":\"v\"}]");
    assertThat(replaced.code()).as(replaced.body()).isEqualTo(200);
    assertThat(api.get(CM + "/c").json().path("metadata").path("labels").path("added").asText())
        .isEqualTo("v");
    RawApi.Answer removed =
        api.send(
            "PATCH",
            CM + "/c",
            Patches.JSON_PATCH,
            "[{\"op\":\"remove\",\"path\":\"/metadata/labels/added\"}]");
    assertThat(removed.code()).as(removed.body()).isEqualTo(200);
    RawApi.Answer big =
        api.post(
            CM,
            "{\"metadata\":{\"name\":\"big\"},\"data\":{\"b\":\""
                + "x".repeat(ConfigValueSize.MAX_BYTES + 1)
                + "\"}}");
    expect(big, 422, "Invalid");
    assertThat(big.body()).contains("may not be more than 1048576 bytes");
    expect(api.get(CM + "/big"), 404, "NotFound");
  }

  @Test
  void unknownPathsAndBadQueryValuesAreNotIgnored() {
    expect(api.get(SAMPLES + "/s/status/x/y"), 404, "NotFound");
    expect(api.get(CM + "?resourceVersion=abc"), 400, "BadRequest");
    expect(api.get(CM + "/a?resourceVersion=abc"), 400, "BadRequest");
    expect(api.get(CM + "?limit=abc"), 400, "BadRequest");
    expect(api.get(CM + "?limit=2&continue=garbage"), 400, "BadRequest");
    expect(api.get(CM + "?watch=true&timeoutSeconds=abc"), 400, "BadRequest");
  }

  @Test
  void listsArePagedWithLimitAndContinue() {
    RawApi.Answer first = api.get(CM + "?limit=2");
    assertThat(first.json().path("items")).hasSize(2);
    String token = first.json().path("metadata").path("continue").asText();
    assertThat(first.json().path("metadata").path("remainingItemCount").asInt()).isEqualTo(3);
    RawApi.Answer second = api.get(CM + "?limit=2&continue=" + token);
    assertThat(second.json().path("items").get(0).path("metadata").path("name").asText())
        .isEqualTo("c");
    String last = second.json().path("metadata").path("continue").asText();
    RawApi.Answer third = api.get(CM + "?limit=2&continue=" + last);
    assertThat(third.json().path("items")).hasSize(1);
    assertThat(third.json().path("metadata").has("continue")).isFalse();
  }

  @Test
  void aWatchWithANegativeTimeoutEndsAndHugeOrZeroTimeoutsKeepTheServerServing() {
    assertThat(api.get(CM + "?watch=true&timeoutSeconds=-1").code()).isEqualTo(200);
    assertThat(api.get(CM + "?watch=true&timeoutSeconds=1").body()).contains("ADDED");
    // a huge timeout overflowed into a negative delay and killed the worker; it is now capped
    for (int i = 0; i < 10; i++) {
      new Thread(() -> api.get(CM + "?watch=true&timeoutSeconds=9223372036854775807")).start();
    }
    assertThat(api.get(CM + "/a").code()).isEqualTo(200);
  }

  @Test
  void realServerLimitsOnBodiesAndJsonPatches() {
    byte[] big = new byte[4 * 1024 * 1024];
    Arrays.fill(big, (byte) ' ');
    expect(api.send("POST", CM, "application/json", big), 413, "RequestEntityTooLarge");
    // 30 doubling copies would grow the object past 6 GB
    StringBuilder copies =
        new StringBuilder("[{\"op\":\"add\",\"path\":\"/data\",\"value\":{\"x\":\"")
            .append("y".repeat(100))
            .append("\"}},{\"op\":\"add\",\"path\":\"/d\",\"value\":{}}");
    copies
        .append(",{\"op\":\"add\",\"path\":\"/d/0\",\"value\":[\"")
        .append("z".repeat(1000))
        .append("\"]}");
    for (int i = 1; i <= 30; i++) {
      copies
          .append(",{\"op\":\"copy\",\"from\":\"/d/")
          .append(i - 1)
          .append("\",\"path\":\"/d/")
          .append(i)
          .append("\"}");
      copies
          .append(",{\"op\":\"copy\",\"from\":\"/d/")
          .append(i - 1)
          .append("\",\"path\":\"/d/")
          .append(i)
          .append("/-\"}");
    }
    copies.append("]");
    RawApi.Answer amplified = api.send("PATCH", CM + "/b", Patches.JSON_PATCH, copies.toString());
    assertThat(amplified.code()).as(amplified.body()).isIn(413, 422);
    StringBuilder many = new StringBuilder("[");
    for (int i = 0; i <= Patches.MAX_JSON_PATCH_OPERATIONS; i++) {
      many.append(i == 0 ? "" : ",")
          .append("{\"op\":\"test\",\"path\":\"/kind\",\"value\":\"ConfigMap\"}");
    }
    many.append("]");
    expect(
        api.send("PATCH", CM + "/b", Patches.JSON_PATCH, many.toString()),
        413,
        "RequestEntityTooLarge");
    assertThat(api.get(CM + "/b").json().has("d")).isFalse();
  }
}
