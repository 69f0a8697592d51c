package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import java.time.Instant;

/**
 * An embedded API server with the product CRDs, a client, and the workload's namespaces and nodes.
 */
final class Cluster implements AutoCloseable {
  final EmbeddedApiServer server;
  final KubernetesClient client;

  Cluster(Path stateDir) {
    server = EmbeddedApiServer.start(stateDir, 0, StandaloneRuntime.productCrds());
    client = new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
  }

  void namespaces(Workload w) {
    for (String ns : w.namespaces()) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
  }

  /** Creates every node of the workload and reports it as its agent would. */
  void nodes(Workload w) {
    Instant beat = Instant.now();
    Parallel.forEach(
        w.nodes,
        8,
        i -> {
          BatchNode n = client.resources(BatchNode.class).resource(w.node(i)).create();
          n.setStatus(w.nodeStatus(i, beat));
          client.resources(BatchNode.class).resource(n).updateStatus();
        });
  }

  void jobs(Workload w) {
    Parallel.forEach(
        w.jobs,
        8,
        i -> {
          BatchJob j = w.job(i);
          client
              .resources(BatchJob.class)
              .inNamespace(j.getMetadata().getNamespace())
              .resource(j)
              .create();
        });
  }

  @Override
  public void close() {
    client.close();
    server.close();
  }
}
