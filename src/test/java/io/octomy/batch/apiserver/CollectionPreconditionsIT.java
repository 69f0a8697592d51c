package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two answers held to the real kube-apiserver's (BadRequestConformanceIT sends the same requests to
 * both): a collection's DELETE checks its preconditions on each item, in list order, and stops at
 * the first refusal (409) as the real server's DeleteCollection does; an unknown field named with a
 * control character is dropped before storing and its warning is not sent (the real server cannot
 * put it in a header either), or refused under Strict, never answered 500 after storing.
 */
class CollectionPreconditionsIT {

  @TempDir static Path dir;
  static EmbeddedApiServer server;
  static RawApi api;

  private static final String CM = "/api/v1/namespaces/default/configmaps";
  private static final String BJS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";
  private static final String ZERO_UID = "00000000-0000-0000-0000-000000000000";

  @BeforeAll
  static void start() {
    server = EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds());
    api = new RawApi(server);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String uid(String name) {
    RawApi.Answer a =
        api.post(
            CM,
            "{\"metadata\":{\"name\":\""
                + name
                + "\",\"labels\":{\"set\":\""
                + name.charAt(0)
                + "\"}}}");
    assertThat(a.code()).as(a.body()).isEqualTo(201);
    return a.json().path("metadata").path("uid").asText();
  }

  private static RawApi.Answer deleteCollection(String selector, String preconditions) {
    return api.send(
        "DELETE",
        CM + "?labelSelector=" + selector,
        "application/json",
        "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":"
            + preconditions
            + "}");
  }

  @Test
  void aWrongUidDeletesNothingOfTheCollection() {
    uid("a1");
    uid("a2");
    RawApi.Answer a = deleteCollection("set%3Da", "{\"uid\":\"" + ZERO_UID + "\"}");
    assertThat(a.code()).as(a.body()).isEqualTo(409);
    assertThat(a.reason()).isEqualTo("Conflict");
    assertThat(a.json().path("message").asText())
        .contains("Precondition failed: UID in precondition: " + ZERO_UID);
    assertThat(api.get(CM + "/a1").code()).isEqualTo(200);
    assertThat(api.get(CM + "/a2").code()).isEqualTo(200);

    RawApi.Answer staleVersion = deleteCollection("set%3Da", "{\"resourceVersion\":\"1\"}");
    assertThat(staleVersion.code()).as(staleVersion.body()).isEqualTo(409);
    assertThat(api.get(CM + "/a1").code()).isEqualTo(200);
  }

  @Test
  void itemsAreCheckedInListOrderUntilTheFirstRefusal() {
    String first = uid("b1");
    uid("b2");
    RawApi.Answer a = deleteCollection("set%3Db", "{\"uid\":\"" + first + "\"}");
    assertThat(a.code()).as("b2's uid differs: " + a.body()).isEqualTo(409);
    assertThat(api.get(CM + "/b1").code()).as("b1 matched and went first").isEqualTo(404);
    assertThat(api.get(CM + "/b2").code()).isEqualTo(200);

    String last = uid("b3");
    RawApi.Answer refusedFirst = deleteCollection("set%3Db", "{\"uid\":\"" + last + "\"}");
    assertThat(refusedFirst.code()).isEqualTo(409);
    assertThat(api.get(CM + "/b2").code()).isEqualTo(200);
    assertThat(api.get(CM + "/b3").code()).as("behind the first refusal").isEqualTo(200);
  }

  @Test
  void anUnknownFieldNamedWithAControlCharacterIsDroppedWithoutAWarning() {
    String job =
        "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
            + "\"NAME\"},\"spec\":{\"bogus\\u0001\":1,\"template\":{\"spec\":"
            + "{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"main\",\"image\":\"x\"}]}}}}";
    RawApi.Answer created = api.post(BJS, job.replace("NAME", "ctl"));
    assertThat(created.code()).as(created.body()).isEqualTo(201);
    assertThat(created.warnings()).isEmpty();
    RawApi.Answer stored = api.get(BJS + "/ctl");
    assertThat(stored.json().path("spec").has("bogus\u0001")).isFalse();
    assertThat(stored.json().path("spec").path("template").isObject()).isTrue();

    RawApi.Answer strict =
        api.post(BJS + "?fieldValidation=Strict", job.replace("NAME", "ctl-strict"));
    assertThat(strict.code()).as(strict.body()).isEqualTo(400);
    assertThat(strict.reason()).isEqualTo("BadRequest");
    assertThat(strict.json().path("message").asText())
        .contains("strict decoding error: unknown field \"spec.bogus\u0001\"");
    assertThat(api.get(BJS + "/ctl-strict").code()).isEqualTo(404);

    RawApi.Answer plain = api.post(BJS, job.replace("NAME", "plain").replace("\\u0001", ""));
    assertThat(plain.code()).isEqualTo(201);
    assertThat(plain.warnings())
        .as("a warning without a control character is still sent")
        .contains("299 - \"unknown field \\\"spec.bogus\\\"\"");
  }
}
