package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A body whose apiVersion is no version the resource serves ({@code batch.octomy.io/v9}) is refused
 * with 400 rather than stored under the served version, and a URL of an unknown version is 404, as
 * on a real server.
 */
class ServedVersionsIT {

  @TempDir Path dir;

  private static final String BJS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";
  private static final String JOB =
      "{\"apiVersion\":\"batch.octomy.io/VERSION\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
          + "\"NAME\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
          + "\"command\":[\"true\"]}]}}}}";

  private static String job(String version, String name) {
    return JOB.replace("VERSION", version).replace("NAME", name);
  }

  @Test
  void anUnknownVersionIsRefusedAndNothingIsStored() {
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds())) {
      RawApi api = new RawApi(server);
      RawApi.Answer created = api.post(BJS, job("v9", "nine"));
      assertThat(created.code()).isEqualTo(400);
      assertThat(created.json().path("message").asText())
          .contains("batch.octomy.io/v9", "write apiVersion: batch.octomy.io/v1alpha1");
      assertThat(api.get(BJS + "/nine").code()).isEqualTo(404);

      assertThat(api.post(BJS, job("v1alpha1", "kept")).code()).isEqualTo(201);
      assertThat(api.send("PUT", BJS + "/kept", "application/json", job("v9", "kept")).code())
          .isEqualTo(400);
      assertThat(
              api.post(
                      "/api/v1/namespaces/default/configmaps",
                      "{\"apiVersion\":\"v2\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}")
                  .code())
          .isEqualTo(400);
      assertThat(api.post(BJS.replace("v1alpha1", "v9"), job("v9", "nine")).code()).isEqualTo(404);
      assertThat(api.get(BJS).json().path("items")).hasSize(1);
    }
  }
}
