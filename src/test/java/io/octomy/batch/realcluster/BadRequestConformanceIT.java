package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same bad (and borderline) requests sent to the real kube-apiserver and to standalone mode's
 * embedded server, each on an object of its own: both must answer with the same status code and
 * {@code Status} reason, and that code must be the one written next to the case. It covers the JSON
 * patch's missing targets and operation limit, the body limit, a ConfigMap's size, content types,
 * apply without a field manager, dryRun values other than All, metadata of the wrong type, unknown
 * versions, namespaces that are missing or may not be deleted, bad query values, renames, moves,
 * preconditions (of a collection's delete too) and a control character in an unknown field.
 *
 * <p>Where standalone mode deliberately differs (nesting depth, objects between 1.5 and 3 MiB, a
 * {@code copy} or {@code test} from a missing path, metadata of the wrong type in a create)
 * docs/standalone.md says so.
 */
class BadRequestConformanceIT {

  private static final String NS = "bad-requests";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_PATCH = "application/json-patch+json";
  private static final String MERGE_PATCH = "application/merge-patch+json";
  private static final String BATCHJOB =
      "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
          + "\"bj\"},\"spec\":{\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":"
          + "[{\"name\":\"main\",\"image\":\"busybox\"}]}}}}";

  private static RealCluster real;
  private static EmbeddedApiServer standalone;
  private static KubernetesClient standaloneClient;

  /** One request; OBJ and COLL in its path stand for its own ConfigMap and their collection. */
  record Case(String name, int expected, String method, String path, String type, byte[] body) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** A status code and the reason of its {@code Status} (empty for a success). */
  record Answer(int code, String reason) {
    @Override
    public String toString() {
      return code + (reason.isEmpty() ? "" : " " + reason);
    }
  }

  /** The standalone server's state, removed after the class. */
  @TempDir static Path state;

  @BeforeAll
  static void servers() throws Exception {
    real = RealCluster.get();
    real.requireCrds();
    standalone = EmbeddedApiServer.start(state, 0, StandaloneRuntime.productCrds());
    standaloneClient = new KubernetesClientBuilder().withConfig(standalone.clientConfig()).build();
    for (KubernetesClient c : List.of(real.admin(), standaloneClient)) {
      Answer ns =
          send(
              c,
              "POST",
              "/api/v1/namespaces",
              "application/json",
              utf8("{\"metadata\":{\"name\":\"" + NS + "\"}}"));
      assertThat(ns.code()).as("namespace %s on %s", NS, c.getMasterUrl()).isIn(201, 409);
      Answer bj =
          send(
              c,
              "POST",
              "/apis/batch.octomy.io/v1alpha1/namespaces/" + NS + "/batchjobs",
              "application/json",
              utf8(BATCHJOB));
      assertThat(bj.code()).as("BatchJob on %s", c.getMasterUrl()).isIn(201, 409);
    }
  }

  @AfterAll
  static void stop() {
    if (standaloneClient != null) {
      standaloneClient.close();
      standalone.close();
    }
  }

  @Test
  void bothServersAnswerEveryBadRequestAlike() throws Exception {
    List<Case> cases = cases();
    List<String> wrong = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      Answer onReal = run(real.admin(), c, "c" + i);
      Answer onStandalone = run(standaloneClient, c, "c" + i);
      System.out.printf(
          "bad request %-34s real %-28s standalone %s%n", c.name(), onReal, onStandalone);
      if (!onReal.equals(onStandalone) || onReal.code() != c.expected()) {
        wrong.add(
            c
                + " (expected "
                + c.expected()
                + "): real "
                + onReal
                + ", standalone "
                + onStandalone);
      }
    }
    assertThat(wrong).as("cases answered differently or not as written").isEmpty();
  }

  /**
   * Where standalone mode is stricter on purpose (docs/standalone.md, "Deliberate differences from
   * a real API server"): each case's {@code expected} is standalone mode's answer, and the real
   * server's is given too, so that a change on either side shows here.
   */
  @Test
  void theDeliberateDifferencesAreTheDocumentedOnes() throws Exception {
    String bjs = "/apis/batch.octomy.io/v1alpha1/namespaces/" + NS + "/batchjobs";
    Map<Case, Integer> onTheRealServer = new LinkedHashMap<>();
    onTheRealServer.put(
        new Case(
            "template-nested-600-levels",
            422,
            "POST",
            bjs,
            "application/json",
            utf8(batchJob("{\"x\":".repeat(599) + "{}" + "}".repeat(599)))),
        201);
    onTheRealServer.put(
        new Case(
            "object-of-1.6-MB",
            413,
            "POST",
            bjs,
            "application/json",
            utf8(batchJob("\"" + "x".repeat(1_600_000) + "\""))),
        500);
    onTheRealServer.put(
        patch(
            "json-patch-copy-from-missing",
            422,
            "[{\"op\":\"copy\",\"from\":\"/data/no\",\"path\":\"/data/z\"}]"),
        200);
    onTheRealServer.put(
        patch(
            "json-patch-test-missing-for-null",
            422,
            "[{\"op\":\"test\",\"path\":\"/data/no\",\"value\":null}]"),
        200);
    onTheRealServer.put(
        new Case(
            "create-with-owner-references-a-string",
            422,
            "POST",
            "COLL",
            "application/json",
            utf8("{\"metadata\":{\"name\":\"owned-create\",\"ownerReferences\":\"x\"}}")),
        400);
    // A DELETE with a DeleteOptions body: the real server then reads the body alone and ignores
    // the query, so a bogus dryRun there deletes for real; standalone refuses the bogus value.
    onTheRealServer.put(
        new Case(
            "delete-dry-run-bogus-beside-a-body", 422, "DELETE", "OBJ?dryRun=Bogus", null, null),
        200);
    // The same code: the real server's mux answers a bare "404 page not found", standalone a
    // Status with reason NotFound.
    onTheRealServer.put(
        new Case(
            "create-at-an-unknown-version",
            404,
            "POST",
            "/apis/batch.octomy.io/v9/namespaces/" + NS + "/batchjobs",
            "application/json",
            utf8(BATCHJOB.replace("v1alpha1", "v9").replace("\"bj\"", "\"bj-v9\""))),
        404);
    List<String> wrong = new ArrayList<>();
    int i = 0;
    for (Map.Entry<Case, Integer> e : onTheRealServer.entrySet()) {
      Case c = e.getKey();
      Answer onReal = run(real.admin(), c, "d" + i);
      Answer onStandalone = run(standaloneClient, c, "d" + i++);
      System.out.printf(
          "deliberate difference %-34s real %-28s standalone %s%n", c, onReal, onStandalone);
      if (onReal.code() != e.getValue() || onStandalone.code() != c.expected()) {
        wrong.add(
            c
                + " (documented: real "
                + e.getValue()
                + ", standalone "
                + c.expected()
                + "): real "
                + onReal
                + ", standalone "
                + onStandalone);
      }
    }
    assertThat(wrong).as("differences other than documented").isEmpty();
  }

  /** A BatchJob named NAME whose template holds {@code extra} under {@code extra}. */
  private static String batchJob(String extra) {
    return "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":"
        + "{\"name\":\"NAME\"},\"spec\":{\"template\":{\"extra\":"
        + extra
        + ",\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"main\","
        + "\"image\":\"busybox\"}]}}}}";
  }

  /** A BatchJob named NAME whose spec has one more field, named {@code field} (JSON text). */
  private static String batchJobWithSpecField(String field) {
    return BATCHJOB
        .replace("\"bj\"", "\"NAME\"")
        .replace("\"spec\":{\"template\"", "\"spec\":{\"" + field + "\":1,\"template\"");
  }

  private static List<Case> cases() {
    String longKey = "k".repeat(300);
    return List.of(
        patch("json-patch-remove-missing-key", 422, "[{\"op\":\"remove\",\"path\":\"/data/no\"}]"),
        patch(
            "json-patch-remove-missing-parent",
            422,
            "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/no\"}]"),
        patch(
            "json-patch-remove-past-the-end",
            422,
            "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/3\"}]"),
        patch(
            "json-patch-replace-missing-key",
            200,
            "[{\"op\":\"replace\",\"path\":\"/data/no\",\"value\":\"z\"}]"),
        patch(
            "json-patch-add-missing-parent",
            422,
            "[{\"op\":\"add\",\"path\":\"/metadata/annotations/a\",\"value\":\"z\"}]"),
        patch(
            "json-patch-move-from-missing",
            422,
            "[{\"op\":\"move\",\"from\":\"/data/no\",\"path\":\"/data/z\"}]"),
        patch(
            "json-patch-test-fails",
            422,
            "[{\"op\":\"test\",\"path\":\"/data/x\",\"value\":\"other\"}]"),
        patch("json-patch-unknown-op", 422, "[{\"op\":\"frobnicate\",\"path\":\"/data\"}]"),
        patch("json-patch-not-a-list", 400, "{\"op\":\"remove\",\"path\":\"/data/x\"}"),
        patch(
            "json-patch-10001-ops",
            413,
            IntStream.range(0, 10_001)
                .mapToObj(i -> "{\"op\":\"test\",\"path\":\"/data/x\",\"value\":\"y\"}")
                .collect(Collectors.joining(",", "[", "]"))),
        new Case(
            "body-over-3-MiB",
            413,
            "POST",
            "COLL",
            "application/json",
            utf8(
                "{\"metadata\":{\"name\":\"huge\"},\"data\":{\"b\":\""
                    + "x".repeat(3 * 1024 * 1024)
                    + "\"}}")),
        new Case(
            "configmap-values-over-1-MiB",
            422,
            "POST",
            "COLL",
            "application/json",
            utf8(
                "{\"metadata\":{\"name\":\"big\"},\"data\":{\"b\":\""
                    + "x".repeat(1024 * 1024 + 1)
                    + "\"}}")),
        new Case("body-not-json", 400, "POST", "COLL", "application/json", utf8("{\"metadata\":")),
        new Case("body-as-xml", 415, "POST", "COLL", "application/xml", utf8("<configmap/>")),
        new Case(
            "apply-without-field-manager",
            422,
            "PATCH",
            "OBJ",
            "application/apply-patch+yaml",
            utf8("{\"data\":{\"x\":\"z\"}}")),
        new Case(
            "strategic-merge-patch-of-a-custom-resource",
            415,
            "PATCH",
            "/apis/batch.octomy.io/v1alpha1/namespaces/" + NS + "/batchjobs/bj",
            "application/strategic-merge-patch+json",
            utf8("{\"spec\":{}}")),
        new Case(
            "create-in-a-missing-namespace",
            404,
            "POST",
            "/api/v1/namespaces/nowhere/configmaps",
            "application/json",
            utf8("{\"metadata\":{\"name\":\"q\"}}")),
        new Case(
            "delete-namespace-default", 403, "DELETE", "/api/v1/namespaces/default", null, null),
        new Case("delete-every-namespace", 405, "DELETE", "/api/v1/namespaces", null, null),
        get("malformed-label-selector", 400, "COLL?labelSelector=a%3D%3D%3Db"),
        get("resource-version-abc", 400, "COLL?resourceVersion=abc"),
        get("limit-abc", 400, "COLL?limit=abc"),
        get("continue-garbage", 400, "COLL?limit=1&continue=garbage"),
        get("watch-timeout-abc", 400, "COLL?watch=true&timeoutSeconds=abc"),
        get("status-x-y", 404, "OBJ/status/x/y"),
        new Case(
            "put-into-another-namespace",
            400,
            "PUT",
            "OBJ",
            "application/json",
            utf8("{\"metadata\":{\"name\":\"NAME\",\"namespace\":\"kube-system\"}}")),
        new Case(
            "merge-patch-rename",
            400,
            "PATCH",
            "OBJ",
            MERGE_PATCH,
            utf8("{\"metadata\":{\"name\":\"renamed\"}}")),
        new Case(
            "put-with-another-uid",
            409,
            "PUT",
            "OBJ",
            "application/json",
            utf8(
                "{\"metadata\":{\"name\":\"NAME\","
                    + "\"uid\":\"00000000-0000-0000-0000-000000000000\"}}")),
        new Case(
            "delete-with-another-uid",
            409,
            "DELETE",
            "OBJ",
            "application/json",
            utf8(
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":"
                    + "{\"uid\":\"00000000-0000-0000-0000-000000000000\"}}")),
        new Case(
            "delete-with-an-old-resource-version",
            409,
            "DELETE",
            "OBJ",
            "application/json",
            utf8(
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":"
                    + "{\"resourceVersion\":\"1\"}}")),
        new Case(
            "delete-collection-with-another-uid",
            409,
            "DELETE",
            "COLL?labelSelector=l%3Dv",
            "application/json",
            utf8(
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":"
                    + "{\"uid\":\"00000000-0000-0000-0000-000000000000\"}}")),
        new Case(
            "delete-collection-with-an-old-resource-version",
            409,
            "DELETE",
            "COLL?labelSelector=l%3Dv",
            "application/json",
            utf8(
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":"
                    + "{\"resourceVersion\":\"1\"}}")),
        // The unknown field is dropped and its warning not sent (a header cannot carry the
        // control character); under Strict the create is refused.
        new Case(
            "create-batchjob-with-a-control-character-in-an-unknown-field",
            201,
            "POST",
            "/apis/batch.octomy.io/v1alpha1/namespaces/" + NS + "/batchjobs",
            "application/json",
            utf8(batchJobWithSpecField("bogus\\u0001"))),
        new Case(
            "strict-create-batchjob-with-a-control-character-in-an-unknown-field",
            400,
            "POST",
            "/apis/batch.octomy.io/v1alpha1/namespaces/" + NS + "/batchjobs?fieldValidation=Strict",
            "application/json",
            utf8(batchJobWithSpecField("bogus\\u0001"))),
        new Case(
            "name-of-254-characters",
            422,
            "POST",
            "COLL",
            "application/json",
            utf8("{\"metadata\":{\"name\":\"" + "n".repeat(254) + "\"}}")),
        new Case(
            "annotation-key-of-300-characters",
            422,
            "PATCH",
            "OBJ",
            MERGE_PATCH,
            utf8("{\"metadata\":{\"annotations\":{\"" + longKey + "\":\"v\"}}}")),
        new Case(
            "merge-patch-owner-references-a-string",
            422,
            "PATCH",
            "OBJ",
            MERGE_PATCH,
            utf8("{\"metadata\":{\"ownerReferences\":\"x\"}}")),
        new Case(
            "merge-patch-owner-references-an-object",
            422,
            "PATCH",
            "OBJ",
            MERGE_PATCH,
            utf8("{\"metadata\":{\"ownerReferences\":{\"name\":\"p\"}}}")),
        patch(
            "json-patch-owner-references-of-numbers",
            422,
            "[{\"op\":\"add\",\"path\":\"/metadata/ownerReferences\",\"value\":[1]}]"),
        new Case(
            "merge-patch-managed-fields-a-string",
            422,
            "PATCH",
            "OBJ",
            MERGE_PATCH,
            utf8("{\"metadata\":{\"managedFields\":\"x\"}}")),
        new Case(
            "merge-patch-finalizers-a-string",
            422,
            "PATCH",
            "OBJ",
            MERGE_PATCH,
            utf8("{\"metadata\":{\"finalizers\":\"x\"}}")),
        new Case(
            "create-dry-run-true",
            422,
            "POST",
            "COLL?dryRun=true",
            "application/json",
            utf8("{\"metadata\":{\"name\":\"dry-true\"}}")),
        new Case(
            "merge-patch-dry-run-empty",
            422,
            "PATCH",
            "OBJ?dryRun=",
            MERGE_PATCH,
            utf8("{\"data\":{\"x\":\"z\"}}")),
        new Case(
            "delete-options-dry-run-all-lower-case",
            422,
            "DELETE",
            "OBJ",
            "application/json",
            utf8("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"dryRun\":[\"all\"]}")),
        new Case(
            "create-with-an-unknown-version",
            400,
            "POST",
            "COLL",
            "application/json",
            utf8("{\"apiVersion\":\"v2\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"v2\"}}")),
        new Case(
            "create-batchjob-of-version-v9",
            400,
            "POST",
            "/apis/batch.octomy.io/v1alpha1/namespaces/" + NS + "/batchjobs",
            "application/json",
            utf8(BATCHJOB.replace("v1alpha1", "v9").replace("\"bj\"", "\"bj-v9\""))),
        new Case(
            "label-value-of-64-characters",
            422,
            "PATCH",
            "OBJ",
            MERGE_PATCH,
            utf8("{\"metadata\":{\"labels\":{\"l\":\"" + "v".repeat(64) + "\"}}}")));
  }

  private static Case patch(String name, int expected, String ops) {
    return new Case(name, expected, "PATCH", "OBJ", JSON_PATCH, utf8(ops));
  }

  private static Case get(String name, int expected, String path) {
    return new Case(name, expected, "GET", path, null, null);
  }

  /** Creates the case's own ConfigMap, then sends the case with OBJ, COLL and NAME filled in. */
  private static Answer run(KubernetesClient client, Case c, String name) throws Exception {
    String coll = "/api/v1/namespaces/" + NS + "/configmaps";
    Answer seeded =
        send(
            client,
            "POST",
            coll,
            "application/json",
            utf8(
                "{\"metadata\":{\"name\":\""
                    + name
                    + "\",\"labels\":{\"l\":\"v\"}},\"data\":{\"x\":\"y\"}}"));
    assertThat(seeded.code()).as("seeding %s on %s", c, client.getMasterUrl()).isEqualTo(201);
    String path = c.path().replace("OBJ", coll + "/" + name).replace("COLL", coll);
    byte[] body =
        c.body() == null
            ? null
            : new String(c.body(), StandardCharsets.UTF_8)
                .replace("\"NAME\"", "\"" + name + "\"")
                .getBytes(StandardCharsets.UTF_8);
    return send(client, c.method(), path, c.type(), body);
  }

  private static Answer send(
      KubernetesClient client, String method, String path, String type, byte[] body)
      throws Exception {
    HttpRequest.Builder b =
        client
            .getHttpClient()
            .newHttpRequestBuilder()
            .uri(client.getMasterUrl().toString().replaceAll("/$", "") + path)
            .timeout(60, TimeUnit.SECONDS);
    if (body != null) {
      // a String body, which the client can send again if it has to retry
      b.method(method, type, new String(body, StandardCharsets.UTF_8));
    } else if (method.equals("DELETE")) {
      b.delete("application/json", "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\"}");
    } else if (!method.equals("GET")) {
      throw new IllegalArgumentException(method + " without a body");
    }
    HttpResponse<String> r = client.getHttpClient().sendAsync(b.build(), String.class).get();
    return new Answer(r.code(), r.code() < 300 ? "" : reason(r.body()));
  }

  private static String reason(String body) {
    try {
      JsonNode status = JSON.readTree(body);
      return status.path("reason").asText("");
    } catch (IOException e) {
      return "(not a Status: " + body.substring(0, Math.min(80, body.length())) + ")";
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
