package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueSpec;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.ConditionTypes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * BatchQueues through the admission loop: the cache's queues reach the pass, and each queue's
 * status is written once when it changes, never again while nothing changes.
 */
class QueueLoopTest {

  private static final String CPU = ApiFixtures.CPU;

  static BatchQueue queue(String name, List<String> namespaces, Map<String, Long> max) {
    BatchQueue q = new BatchQueue();
    q.setMetadata(new ObjectMetaBuilder().withName(name).withGeneration(1L).build());
    BatchQueueSpec spec = new BatchQueueSpec();
    spec.setNamespaces(namespaces);
    spec.setMax(max);
    q.setSpec(spec);
    return q;
  }

  @Test
  void aQueuesMaxHoldsItsJobsAndItsStatusIsWrittenOnceWhenItChanges() {
    AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();
    h.cluster.add(h.readyNode("ws-1", 8000, Executor.Process));
    h.cluster.add(queue("team", List.of("team-a"), Map.of(CPU, 3000L)));
    h.cluster.add(
        aJob("j1")
            .namespace("team-a")
            .cpu(2000)
            .queuedAgo(2, java.time.temporal.ChronoUnit.MINUTES)
            .build());
    h.cluster.add(
        aJob("j2")
            .namespace("team-a")
            .cpu(2000)
            .queuedAgo(1, java.time.temporal.ChronoUnit.MINUTES)
            .build());
    h.cluster.add(aJob("d").cpu(1000).build());

    h.pass();

    BatchJob j1 = h.cluster.job("team-a", "j1");
    BatchJob j2 = h.cluster.job("team-a", "j2");
    assertThat(j1.getStatus().getNode()).isEqualTo("ws-1");
    assertThat(j2.getStatus().getReason()).isEqualTo("WaitingForQueueMax");
    assertThat(j2.getStatus().getMessage())
        .isEqualTo(
            "waiting for queue max: need 2000 octomy.io/cpu-milli, 2000 already admitted or"
                + " running in queue team, its max is 3000.");
    assertThat(h.cluster.job("d").getStatus().getNode()).isEqualTo("ws-1");
    BatchQueueStatus status = h.cluster.queue("team").getStatus();
    assertThat(status.getUsage()).isEqualTo(Map.of(CPU, 2000L));
    assertThat(status.getPending()).isEqualTo(1);
    assertThat(status.getAdmitted()).isEqualTo(1);
    // 2000 of the 8000 offered, against half the pool (the default queue has work too).
    assertThat(status.getShare()).isEqualTo("0.25/0.50");
    // The pass's term: 0.25 of the two queues' 0.375 against a deserved half, 1000 x 2^-(4/3).
    assertThat(status.getFairShareTerm()).isEqualTo(397L);
    assertThat(Conditions.isTrue(status.getConditions(), ConditionTypes.READY)).isTrue();
    assertThat(h.cluster.queueWrites()).isEqualTo(1);

    // Within the node's heartbeat timeout: the pool stays as it was.
    h.clock.advance(Duration.ofSeconds(10));
    h.pass();
    h.clock.advance(Duration.ofSeconds(10));
    h.pass();

    assertThat(h.cluster.queueWrites()).as("nothing changed: no write").isEqualTo(1);
  }

  @Test
  void aNamespaceTwoQueuesClaimIsShownOnBothQueues() {
    AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();
    h.cluster.add(h.readyNode("ws-1", 8000, Executor.Process));
    h.cluster.add(queue("alpha", List.of("shared"), null));
    h.cluster.add(queue("beta", List.of("shared"), null));
    h.cluster.add(aJob("j").namespace("shared").cpu(1000).build());

    h.pass();

    assertThat(h.cluster.job("shared", "j").getStatus().getReason()).isEqualTo("QueueConflict");
    for (String name : List.of("alpha", "beta")) {
      var ready =
          Conditions.find(h.cluster.queue(name).getStatus().getConditions(), ConditionTypes.READY);
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("NamespaceConflict");
      assertThat(ready.getMessage()).contains("namespace shared is claimed by queue");
    }
  }
}
