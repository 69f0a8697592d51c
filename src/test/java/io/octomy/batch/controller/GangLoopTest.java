package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Gangs ({@code spec.replicas}) through the admission loop against a fake cluster: the decision
 * written names each replica's node, and the passes after it count the gang on every one of those
 * nodes, from its status and while its write is still out.
 */
class GangLoopTest {

  private static final String CPU = ApiFixtures.CPU;

  private final AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();
  private AdmissionLoop pipelined;

  @AfterEach
  void close() {
    h.loop.close();
    if (pipelined != null) {
      pipelined.close();
    }
  }

  private static BatchJob gang(String name, long cpu, int replicas) {
    BatchJob job = aJob(name).request(CPU, cpu).build();
    job.getSpec().setReplicas(replicas);
    return job;
  }

  @Test
  void aDecidedGangCarriesItsReplicaNodesAndTheNextPassCountsItOnEachNode() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(h.readyNode("n2", 4000, Executor.Process));
    h.cluster.add(gang("solver", 2000, 3));
    h.pass();

    BatchJobStatus s = h.cluster.job("solver").getStatus();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(s.getReplicaNodes()).containsExactly("n1", "n1", "n2");
    assertThat(s.getNode()).as("the first replica's node").isEqualTo("n1");
    assertThat(s.getMessage())
        .isEqualTo("admitted as a gang of 3 replicas: 0 and 1 on node n1, 2 on node n2.");

    // n1 holds two replicas and n2 one: a 2000 job fits n2 only, and a second fits nowhere.
    h.cluster.add(aJob("late").request(CPU, 2000).build());
    h.pass();
    h.cluster.add(aJob("later").request(CPU, 2000).build());
    h.pass();
    assertThat(h.cluster.job("late").getStatus().getNode()).isEqualTo("n2");
    assertThat(h.cluster.job("late").getStatus().getReplicaNodes())
        .as("a single job's status names no replica nodes")
        .isNull();
    assertThat(h.cluster.job("later").getStatus().getReason()).isEqualTo("WaitingForCapacity");
  }

  @Test
  void aGangWhoseAdmissionIsStillBeingWrittenIsCountedOnEachOfItsNodes() throws Exception {
    AdmissionLoopPipelineTest.HeldWrites writer =
        new AdmissionLoopPipelineTest.HeldWrites(h.cluster);
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(h.readyNode("n2", 4000, Executor.Process));
    h.cluster.add(gang("solver", 2000, 3));
    writer.hold.add("solver");
    pipelined =
        new AdmissionLoop(
            h.cluster,
            writer,
            Policy.defaults(),
            h.clock,
            new ControllerMetrics(new SimpleMeterRegistry()),
            new AdmissionLoop.Settings(
                Duration.ofHours(1), Duration.ofHours(1), Duration.ofSeconds(30), 4));
    try {
      CompletableFuture<AdmissionLoop.PassReport> first = pipelined.sendPass();
      assertThat(writer.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
      h.cluster.add(aJob("late").request(CPU, 2000).build());
      h.cluster.add(aJob("later").request(CPU, 1000).build());
      pipelined.sendPass().get(30, TimeUnit.SECONDS);

      assertThat(first).isNotDone();
      assertThat(h.cluster.job("late").getStatus().getNode())
          .as("n1 is full with two replicas still being written")
          .isEqualTo("n2");
      assertThat(h.cluster.job("later").getStatus().getReason()).isEqualTo("WaitingForCapacity");
      writer.letGo.release();
      first.get(30, TimeUnit.SECONDS);
      assertThat(h.cluster.job("solver").getStatus().getReplicaNodes())
          .containsExactly("n1", "n1", "n2");
    } finally {
      writer.letGo.release(1000);
    }
  }
}
