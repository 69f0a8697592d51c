package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the schema fuzzer ({@code evidence.SchemaFuzz}) found, one case each: writes the server took
 * that left the product unable to read or answer them.
 */
class FuzzFindingsIT {

  @TempDir Path dir;

  private static final String BJS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";

  private static String job(String name, String extra) {
    return "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":"
        + "{\"name\":\""
        + name
        + "\"},\"spec\":{"
        + extra
        + "\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\",\"command\":[\"true\"]}]}}}}";
  }

  /**
   * A status count past what its Java type holds ({@code status.array.running: 2147568856}) was
   * stored through the status subresource; the controller's informer could not read it, the
   * operator stopped and standalone exited. Now 422 with the largest value taken.
   */
  @Test
  void aStatusNumberBeyondItsReadersTypeIsRefusedWithTheLargestItTakes() {
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds())) {
      RawApi api = new RawApi(server);
      assertThat(api.post(BJS, job("counted", "")).code()).isEqualTo(201);
      String[][] cases = {
        {"{\"array\":{\"running\":2147568856}}", "status.array.running", "2147483647"},
        {"{\"exitCode\":-2147483649}", "status.exitCode", "-2147483648"},
        {
          "{\"effectivePriority\":10000000000000000000000000000000000000000}",
          "status.effectivePriority",
          "9007199254740991"
        },
      };
      for (String[] c : cases) {
        RawApi.Answer a =
            api.send(
                "PATCH",
                BJS + "/counted/status",
                "application/merge-patch+json",
                "{\"status\":" + c[0] + "}");
        assertThat(a.code()).as(a.body()).isEqualTo(422);
        assertThat(a.json().path("message").asText()).as(c[1]).contains(c[1], c[2]);
      }
      assertThat(api.get(BJS + "/counted").json().path("status").path("array").isMissingNode())
          .isTrue();
      RawApi.Answer fits =
          api.send(
              "PATCH",
              BJS + "/counted/status",
              "application/merge-patch+json",
              "{\"status\":{\"array\":{\"running\":2147483647}}}");
      assertThat(fits.code()).as(fits.body()).isEqualTo(200);
    }
  }

  /**
   * An integral fraction in an integer field ({@code status.array.running: 0.0}) passed the type
   * check and was stored as written; the controller's informer could not read {@code 0.0} as an
   * int, the operator stopped and standalone exited. Now stored as the whole number, as the real
   * server stores it.
   */
  @Test
  void anIntegralFractionInAnIntegerFieldIsStoredAsTheWholeNumber() {
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds())) {
      RawApi api = new RawApi(server);
      RawApi.Answer created = api.post(BJS, job("fraction", "\"backoffLimit\":2.0,"));
      assertThat(created.code()).as(created.body()).isEqualTo(201);
      RawApi.Answer a =
          api.send(
              "PATCH",
              BJS + "/fraction/status",
              "application/merge-patch+json",
              "{\"status\":{\"array\":{\"running\":0.0},\"runs\":[{\"run\":1e1}]}}");
      assertThat(a.code()).as(a.body()).isEqualTo(200);
      RawApi.Answer stored = api.get(BJS + "/fraction");
      assertThat(stored.body())
          .contains("\"backoffLimit\":2,", "\"running\":0}", "\"run\":10}")
          .doesNotContain("0.0", "2.0", "1e1", "10.0");
      assertThat(
              api.send(
                      "PATCH",
                      BJS + "/fraction/status",
                      "application/merge-patch+json",
                      "{\"status\":{\"array\":{\"running\":0.5}}}")
                  .code())
          .isEqualTo(422);
    }
  }

  /**
   * A job with 5,000 unknown fields was stored and answered with one Warning header each, more than
   * a client reads (the JDK's client gave up at 384 KiB): the write looked unanswered. Now the
   * warnings are cut as the real server cuts them, and the answer is read.
   */
  @Test
  void thousandsOfUnknownFieldsGetTheirWarningsCutAsTheRealServerCutsThem() {
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds())) {
      RawApi api = new RawApi(server);
      StringBuilder unknown = new StringBuilder();
      for (int i = 0; i < 5_000; i++) {
        unknown.append("\"unknownFieldNumber").append(i).append("\":1,");
      }
      RawApi.Answer a = api.post(BJS, job("wide", unknown.toString()));
      assertThat(a.code()).as(a.body()).isEqualTo(201);
      assertThat(a.warnings()).isNotEmpty();
      assertThat(a.warnings().size()).isLessThan(5_000);
      // each header is 299 - "TEXT": the texts add up to the real server's total and one more cut
      assertThat(a.warnings().stream().mapToInt(w -> w.length() - "299 - \"\"".length()).sum())
          .isLessThanOrEqualTo(ApiResponse.WARNINGS_TOTAL + ApiResponse.WARNING_CUT);
      assertThat(a.warnings().get(0)).contains("unknownFieldNumber0");
    }
  }

  /**
   * A YAML body with an alias ({@code type: *v}) was stored with the alias's name as its text where
   * a real server stores the anchored value. Now refused, saying what to send; nothing stored.
   */
  @Test
  void aYamlAliasIsRefusedNotStoredAsItsName() {
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds())) {
      RawApi api = new RawApi(server);
      String yaml =
          """
          apiVersion: batch.octomy.io/v1alpha1
          kind: BatchJob
          metadata: {name: %s, labels: {team: &v solvers}}
          spec:
            type: %s
            template: {spec: {containers: [{name: main, command: ["true"]}]}}
          """;
      RawApi.Answer aliased =
          api.send("POST", BJS, "application/yaml", yaml.formatted("aliased", "*v"));
      assertThat(aliased.code()).as(aliased.body()).isEqualTo(400);
      assertThat(aliased.json().path("message").asText()).contains("YAML alias (*v)", "send JSON");
      assertThat(api.get(BJS + "/aliased").code()).isEqualTo(404);
      RawApi.Answer plain =
          api.send("POST", BJS, "application/yaml", yaml.formatted("plain", "solve"));
      assertThat(plain.code()).as(plain.body()).isEqualTo(201);
      assertThat(
              api.get(BJS + "/plain").json().path("metadata").path("labels").path("team").asText())
          .isEqualTo("solvers");
    }
  }
}
