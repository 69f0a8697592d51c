package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import io.octomy.batch.realcluster.RealCluster;
import io.octomy.batch.standalone.EmbeddedApiServer;
import io.octomy.batch.standalone.ServerLimits;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;

/**
 * The API server a benchmark runs against: standalone mode's embedded server (in this JVM), or the
 * real kube-apiserver + etcd of test-cluster/ (its own processes), both with the product's CRDs.
 * The embedded one puts the controller's finalizer on new BatchJobs, as standalone mode's does; on
 * the real one the controller writes it before each admission.
 */
final class BenchmarkServer implements AutoCloseable {

  private final Config config;
  private final AutoCloseable server;

  private BenchmarkServer(Config config, AutoCloseable server) {
    this.config = config;
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
        return new BenchmarkServer(s.clientConfig(), s);
      }
      case "real" -> {
        RealCluster c = RealCluster.startAt(dir.resolve("real"));
        c.requireCrds();
        return new BenchmarkServer(c.adminConfig(), c);
      }
      default ->
          throw new IllegalArgumentException("--servers takes standalone and/or real, not " + name);
    }
  }

  Config config() {
    return config;
  }

  @Override
  public void close() throws Exception {
    server.close();
  }
}
