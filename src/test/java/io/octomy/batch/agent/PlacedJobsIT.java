package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's job informers cache only the jobs placed on its node and the gangs where the server
 * can select them by {@code status.node} and {@code spec.replicas}, and every job (its index still
 * finding this node's) where it cannot: a BatchJob CRD without the selectable fields, as on
 * kube-apiserver before 1.31.
 */
class PlacedJobsIT {

  private static final String NS = "default";

  @TempDir Path dir;

  @Test
  void cachesOnlyTheJobsPlacedOnItsNodeAndTheGangs() throws Exception {
    List<String> cached = cachedAfterPlacing(StandaloneRuntime.productCrds());
    // "gang" (first replica on ws-2) only the gang informer holds; "gang-here" (first replica on
    // ws-1) both do, and the lookup lists it once.
    assertThat(cached)
        .containsExactlyInAnyOrder(
            "default/mine", "default/gang", "default/gang-here", "default/gang-here");
  }

  @Test
  void cachesEveryJobWhereTheServerCannotSelectByNode() throws Exception {
    List<String> crds =
        StandaloneRuntime.productCrds().stream()
            .map(c -> c.replaceAll("\\n *selectableFields:(\\n *- jsonPath: \"?[.a-z]+\"?)+", ""))
            .toList();
    assertThat(crds).noneMatch(c -> c.contains("selectableFields"));
    List<String> cached = cachedAfterPlacing(crds);
    assertThat(cached)
        .containsExactlyInAnyOrder(
            "default/mine", "default/theirs", "default/new", "default/gang", "default/gang-here");
  }

  /** Keys of the informer's cache once jobs are placed here and elsewhere; checks the index. */
  private List<String> cachedAfterPlacing(List<String> crds) throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start(dir, 0, crds);
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.clientConfig()).build()) {
      create(client, "new");
      place(client, create(client, "theirs"), "ws-2");
      List<SharedIndexInformer<BatchJob>> informers = InformedJobs.informers(client, "ws-1");
      try {
        informers.forEach(SharedIndexInformer::run);
        place(client, create(client, "mine"), "ws-1");
        place(client, createGang(client, "gang"), "ws-2", "ws-1");
        place(client, createGang(client, "gang-here"), "ws-1", "ws-2");
        InformedJobs jobs =
            InformedJobs.ofCaches(informers.stream().map(SharedIndexInformer::getIndexer).toList());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (jobs.placedOn("ws-1").size() < 3 && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertThat(jobs.placedOn("ws-1"))
            .extracting(j -> j.getMetadata().getName())
            .containsExactlyInAnyOrder("mine", "gang", "gang-here");
        return informers.stream().flatMap(i -> i.getStore().listKeys().stream()).toList();
      } finally {
        informers.forEach(SharedIndexInformer::close);
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

  private static BatchJob createGang(KubernetesClient client, String name) {
    BatchJob job = ApiFixtures.aJob(name).namespace(NS).command("true").build();
    job.getSpec().setReplicas(2);
    return client.resources(BatchJob.class).inNamespace(NS).resource(job).create();
  }

  /** Admitted to {@code nodes}: one node is a job of one replica, several a gang's replicas. */
  private static void place(KubernetesClient client, BatchJob job, String... nodes) {
    BatchJobStatus s = new BatchJobStatus();
    s.setNode(nodes[0]);
    s.setReplicaNodes(nodes.length > 1 ? List.of(nodes) : null);
    s.setPhase(JobPhase.Admitted);
    job.setStatus(s);
    client.resources(BatchJob.class).inNamespace(NS).resource(job).updateStatus();
  }
}
