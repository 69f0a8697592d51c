package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.controller.ClusterWriter.FinalizersWritten;
import io.octomy.batch.controller.ClusterWriter.Result;
import io.octomy.batch.standalone.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.Finalizers;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's finalizer writes against the embedded API server, each answered in one request:
 * written (with the version it made), refused on a stale version, or the job gone.
 */
class KubernetesWriterIT {

  private static final String JOBS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs/";

  @TempDir Path dir;
  private EmbeddedApiServer server;
  private KubernetesClient client;
  private final List<String> sent = new CopyOnWriteArrayList<>();
  private KubernetesWriter writer;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds());
    Interceptor recording =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            sent.add(request.method() + " " + request.uri().getPath());
          }
        };
    client =
        new KubernetesClientBuilder()
            .withConfig(server.clientConfig())
            .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("record", recording))
            .build();
    writer = new KubernetesWriter(client, Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private BatchJob created(String name) {
    BatchJob job = client.resource(aJob(name).cpu(1000).build()).create();
    sent.clear();
    return job;
  }

  @Test
  void theFinalizerIsWrittenInOnePatch() {
    BatchJob job = created("a");

    FinalizersWritten written = writer.writeFinalizers(job, ReservationFinalizer.added(job));

    assertThat(written.result()).isEqualTo(Result.WRITTEN);
    assertThat(sent).containsExactly("PATCH " + JOBS + "a");
    BatchJob now = client.resources(BatchJob.class).withName("a").get();
    assertThat(now.getMetadata().getFinalizers()).containsExactly(Finalizers.RESERVATION);
    assertThat(written.resourceVersion()).isEqualTo(now.getMetadata().getResourceVersion());
  }

  @Test
  void aWriteOnAStaleVersionIsRefusedInOnePatch() {
    BatchJob job = created("b");
    client
        .resources(BatchJob.class)
        .withName("b")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}");
    sent.clear();

    FinalizersWritten written = writer.writeFinalizers(job, ReservationFinalizer.added(job));

    assertThat(written.result()).isEqualTo(Result.CONFLICT);
    assertThat(sent).containsExactly("PATCH " + JOBS + "b");
    assertThat(client.resources(BatchJob.class).withName("b").get().getMetadata().getFinalizers())
        .isNullOrEmpty();
  }

  @Test
  void aJobGoneIsToldInOnePatch() {
    BatchJob job = created("c");
    client.resources(BatchJob.class).withName("c").delete();
    sent.clear();

    FinalizersWritten written = writer.writeFinalizers(job, ReservationFinalizer.added(job));

    assertThat(written.result()).isEqualTo(Result.GONE);
    assertThat(sent).containsExactly("PATCH " + JOBS + "c");
  }
}
