package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.CPU;
import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Policy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on one Lease: one decides, the other takes over when it goes, nothing is booked
 * twice.
 */
class LeaderElectionIT {

  private final KubernetesMockServer server = MockApi.crudServer();
  private final KubernetesClient admin = server.createClient();
  private BatchController a;
  private BatchController b;

  @AfterEach
  void tearDown() {
    for (BatchController c : new BatchController[] {a, b}) {
      if (c != null) {
        c.close();
      }
    }
    admin.close();
    server.destroy();
  }

  private BatchController replica(KubernetesClient client) throws Exception {
    return BatchController.start(
        client,
        new BatchController.ControllerOptions(
            Policy.defaults(),
            true,
            "default",
            "127.0.0.1",
            -1,
            new AdmissionLoop.Settings(
                Duration.ofMillis(50), Duration.ofMillis(300), Duration.ofSeconds(30), 4),
            Duration.ofSeconds(3),
            false),
        Clock.systemUTC());
  }

  private long admitted() {
    return admin.resources(BatchJob.class).inNamespace("default").list().getItems().stream()
        .filter(j -> j.getStatus() != null && j.getStatus().getPhase() == JobPhase.Admitted)
        .count();
  }

  /**
   * JOSDK reconciles only when a BatchJob exists: a leader on an empty cluster must still make its
   * first pass, or it never publishes itself as the replica that answers visibility calls.
   */
  @Test
  void aLeaderOnAnEmptyClusterDecidesWithoutWaitingForAJob() throws Exception {
    MockApi.installCrds(admin);
    KubernetesClient clientA = server.createClient();
    try {
      a = replica(clientA);
      Eventually.until(
          Duration.ofSeconds(20),
          "a first pass with no BatchJob at all",
          () -> a.loop().lastPass().isPresent());
      assertThat(a.loop().lastPass().orElseThrow().snapshot().jobs()).isEmpty();
    } finally {
      clientA.close();
    }
  }

  @Test
  void oneReplicaDecidesAndTheOtherTakesOver() throws Exception {
    MockApi.installCrds(admin);
    aNode("n1").capacity(CPU, 3000).heartbeat(Instant.now()).create(admin);
    KubernetesClient clientA = server.createClient();
    KubernetesClient clientB = server.createClient();
    try (InvariantWatcher watcher = new InvariantWatcher(admin, Map.of("n1", 3000L), Map.of())) {
      a = replica(clientA);
      b = replica(clientB);
      for (int i = 0; i < 6; i++) {
        aJob("j" + i).cpu(1000).create(admin);
      }
      Eventually.until(Duration.ofSeconds(30), "three admissions", () -> admitted() == 3);
      assertThat(a.loop().isActive() ^ b.loop().isActive())
          .as("exactly one replica decides")
          .isTrue();
      String leader =
          admin
              .resources(Lease.class)
              .inNamespace("default")
              .withName(Labels.COMPONENT)
              .get()
              .getSpec()
              .getHolderIdentity();
      assertThat(leader).isNotBlank();

      // The leader stops (and releases the Lease); the standby takes it and carries on.
      BatchController gone = a.loop().isActive() ? a : b;
      BatchController standby = gone == a ? b : a;
      gone.close();
      if (gone == a) {
        a = null;
      } else {
        b = null;
      }
      admin
          .pods()
          .inNamespace("default")
          .delete(); // not what completion looks like, so: free capacity by deleting jobs
      for (BatchJob j : admin.resources(BatchJob.class).inNamespace("default").list().getItems()) {
        if (j.getStatus() != null && j.getStatus().getPhase() == JobPhase.Admitted) {
          admin.resources(BatchJob.class).inNamespace("default").resource(j).delete();
        }
      }
      Eventually.until(
          Duration.ofSeconds(40),
          "the standby to admit the other three",
          () ->
              admitted() == 3
                  && admin.resources(BatchJob.class).inNamespace("default").list().getItems().size()
                      == 3);
      assertThat(standby.loop().isActive()).isTrue();
      assertThat(
              admin
                  .resources(Lease.class)
                  .inNamespace("default")
                  .withName(Labels.COMPONENT)
                  .get()
                  .getSpec()
                  .getHolderIdentity())
          .isNotEqualTo(leader);
      assertThat(watcher.violations()).isEmpty();
    } finally {
      clientA.close();
      clientB.close();
    }
  }
}
