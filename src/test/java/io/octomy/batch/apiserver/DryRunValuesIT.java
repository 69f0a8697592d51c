package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dryRun} takes only {@code All}, as on a real server: any other value (true, all, an empty
 * one, a typo) on POST, PUT, PATCH or DELETE gets 422 naming the supported value and writes
 * nothing, where before it was taken as no dry run and the job ran.
 */
class DryRunValuesIT {

  @TempDir Path dir;

  private static final String BJS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";
  private static final String JOB =
      "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
          + "\"NAME\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
          + "\"command\":[\"true\"]}]}}}}";

  @Test
  void everyValueButAllIsRefusedOnEveryWriteAndNothingIsWritten() {
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds())) {
      RawApi api = new RawApi(server);
      assertThat(api.post(BJS, JOB.replace("NAME", "kept")).code()).isEqualTo(201);
      String version =
          api.get(BJS + "/kept").json().path("metadata").path("resourceVersion").asText();
      for (String value : List.of("true", "all", "Bogus", "")) {
        String q = "?dryRun=" + value;
        RawApi.Answer created = api.post(BJS + q, JOB.replace("NAME", "dry"));
        assertThat(created.code()).as("POST " + q).isEqualTo(422);
        assertThat(created.json().path("message").asText())
            .isEqualTo(
                "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\""
                    + value
                    + "\"]: supported values: \"All\"");
        assertThat(
                api.send("PUT", BJS + "/kept" + q, "application/json", JOB.replace("NAME", "kept"))
                    .code())
            .as("PUT " + q)
            .isEqualTo(422);
        RawApi.Answer patched =
            api.send(
                "PATCH",
                BJS + "/kept" + q,
                Patches.MERGE_PATCH,
                "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
        assertThat(patched.code()).as("PATCH " + q).isEqualTo(422);
        assertThat(patched.body()).contains("PatchOptions.meta.k8s.io");
        assertThat(api.send("DELETE", BJS + "/kept" + q, null, "").code())
            .as("DELETE " + q)
            .isEqualTo(422);
        assertThat(api.send("DELETE", BJS + q, null, "").code())
            .as("DELETE collection " + q)
            .isEqualTo(422);
      }
      RawApi.Answer inBody =
          api.send(
              "DELETE",
              BJS + "/kept",
              "application/json",
              "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"dryRun\":[\"true\"]}");
      assertThat(inBody.code()).isEqualTo(422);
      assertThat(inBody.body()).contains("DeleteOptions.meta.k8s.io");

      assertThat(api.get(BJS + "/dry").code()).isEqualTo(404);
      assertThat(api.get(BJS + "/kept").json().path("metadata").path("resourceVersion").asText())
          .isEqualTo(version);
      // All is a dry run: answered as a create, and nothing stored
      assertThat(api.post(BJS + "?dryRun=All", JOB.replace("NAME", "dry")).code()).isEqualTo(201);
      assertThat(api.get(BJS + "/dry").code()).isEqualTo(404);
      assertThat(api.send("DELETE", BJS + "/kept?dryRun=All", null, "").code()).isEqualTo(200);
      assertThat(api.get(BJS + "/kept").code()).isEqualTo(200);
    }
  }
}
