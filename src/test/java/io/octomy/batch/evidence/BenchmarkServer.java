package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.apiserver.ServerLimits;
import io.octomy.batch.realcluster.RealCluster;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The API server a benchmark runs against: standalone mode's embedded server (in this JVM), or the
 * real kube-apiserver + etcd of test-cluster/ (its own processes), both with the product's CRDs.
 * The embedded one puts the controller's finalizer on new BatchJobs, as standalone mode's does; on
 * the real one the controller writes it before each admission.
 */
final class BenchmarkServer implements AutoCloseable {

  private final Config config;
  private final Supplier<KubernetesClientBuilder> controllerClients;
  private final AutoCloseable server;

  private BenchmarkServer(
      Config config, Supplier<KubernetesClientBuilder> controllerClients, AutoCloseable server) {
    this.config = config;
    this.controllerClients = controllerClients;
    this.server = server;
  }

  /** {@code standalone} or {@code real}; state goes under {@code dir}. */
  static BenchmarkServer open(String name, Path dir) {
    switch (name) {
      case "standalone" -> {
        EmbeddedApiServer s =
            EmbeddedApiServer.start(
                dir.resolve("standalone"),
                0,
                StandaloneRuntime.productCrds(),
                false,
                ServerLimits.defaults(),
                StandaloneRuntime.reservationFromCreate());
        return new BenchmarkServer(s.clientConfig(), s::inProcessClientBuilder, s);
      }
      case "real" -> {
        RealCluster c = RealCluster.startAt(dir.resolve("real"));
        c.requireCrds();
        Config admin = c.adminConfig();
        return new BenchmarkServer(admin, () -> new KubernetesClientBuilder().withConfig(admin), c);
      }
      default ->
          throw new IllegalArgumentException("--servers takes standalone and/or real, not " + name);
    }
  }

  /** For the benchmark's own clients, as a user's: over HTTPS. */
  Config config() {
    return config;
  }

  /**
   * For the controller, and for the writers of the ceiling it is measured against, as the product
   * runs it: standalone's controller shares its server's process and reaches it without HTTP
   * ({@code EmbeddedApiServer.inProcessClient}); a cluster's controller is a client over HTTPS.
   */
  KubernetesClient controllerClient(Consumer<HttpClient.Builder> addTo) {
    return controllerClients.get().withHttpClientBuilderConsumer(addTo).build();
  }

  @Override
  public void close() throws Exception {
    server.close();
  }
}
