package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.standalone.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's job informer caches only the jobs placed on its node where the server can select them
 * by {@code status.node}, and every job (its index still finding this node's) where it cannot: a
 * BatchJob CRD without the selectable field, as on kube-apiserver before 1.31.
 */
class PlacedJobsIT {

  private static final String NS = "default";

  @TempDir Path dir;

  @Test
  void cachesOnlyTheJobsPlacedOnItsNode() throws Exception {
    List<String> cached = cachedAfterPlacing(StandaloneRuntime.productCrds());
    assertThat(cached).containsExactly("default/mine");
  }

  @Test
  void cachesEveryJobWhereTheServerCannotSelectByNode() throws Exception {
    List<String> crds =
        StandaloneRuntime.productCrds().stream()
            .map(
                c ->
                    c.replaceAll(
                        "\\n *selectableFields:\\n *- jsonPath: \"?\\.status\\.node\"?", ""))
            .toList();
    assertThat(crds).noneMatch(c -> c.contains("selectableFields"));
    List<String> cached = cachedAfterPlacing(crds);
    assertThat(cached).containsExactlyInAnyOrder("default/mine", "default/theirs", "default/new");
  }

  /** Keys of the informer's cache once jobs are placed here and elsewhere; checks the index. */
  private List<String> cachedAfterPlacing(List<String> crds) throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, crds);
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.clientConfig()).build()) {
      create(client, "new");
      place(client, create(client, "theirs"), "ws-2");
      SharedIndexInformer<BatchJob> informer = InformedJobs.informer(client, "ws-1");
      try {
        informer.run();
        place(client, create(client, "mine"), "ws-1");
        InformedJobs jobs = InformedJobs.of(informer.getIndexer());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (jobs.placedOn("ws-1").isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertThat(jobs.placedOn("ws-1"))
            .extracting(j -> j.getMetadata().getName())
            .containsExactly("mine");
        return informer.getStore().listKeys();
      } finally {
        informer.close();
      }
    }
  }

  private static BatchJob create(KubernetesClient client, String name) {
    return client
        .resources(BatchJob.class)
        .inNamespace(NS)
        .resource(ApiFixtures.aJob(name).namespace(NS).command("true").build())
        .create();
  }

  private static void place(KubernetesClient client, BatchJob job, String node) {
    BatchJobStatus s = new BatchJobStatus();
    s.setNode(node);
    s.setPhase(JobPhase.Admitted);
    job.setStatus(s);
    client.resources(BatchJob.class).inNamespace(NS).resource(job).updateStatus();
  }
}
