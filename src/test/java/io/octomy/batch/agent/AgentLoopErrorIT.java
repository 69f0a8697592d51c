package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.Times;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Error thrown in the agent's periodic work (found when a jar replaced under a running agent
 * made a class unloadable) must not end its heartbeat: the scheduler never runs a task again once
 * it threw, and the agent lived on silent, its node going Unknown with nothing in its log.
 */
class AgentLoopErrorIT {

  private static final String NODE = "ws-err";
  private static final long GIB = 1L << 30;

  @TempDir Path state;
  @TempDir Path cgroups;
  @TempDir Path serverState;
  private EmbeddedApiServer server;
  private KubernetesClient client;
  private NodeAgent agent;

  @BeforeEach
  void startServer() throws IOException {
    server = EmbeddedApiServer.start(serverState, 0, StandaloneRuntime.productCrds());
    client = new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
  }

  @AfterEach
  void stopAll() throws IOException {
    if (agent != null) {
      agent.close();
    }
    client.close();
    server.close();
  }

  @Test
  void aReportThatThrowsAnErrorIsTriedAgainAndTheHeartbeatGoesOn() throws Exception {
    AtomicInteger readings = new AtomicInteger();
    HostProbe probe =
        () -> {
          // The first reading is start()'s own report; the second is the timer's first.
          if (readings.incrementAndGet() == 2) {
            throw new NoClassDefFoundError("io/example/Missing");
          }
          return new HostReadings(4, 8 * GIB, 0, 100, GIB);
        };
    AgentSettings settings =
        AgentSettings.defaults(NODE)
            .withStateDir(state)
            .withReportInterval(Duration.ofMillis(300))
            .withSampleInterval(Duration.ofMillis(200));
    agent = new NodeAgent(client, settings, probe, Clock.systemUTC(), CgroupBounds.NONE, cgroups);
    agent.start();

    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (readings.get() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    Instant afterError = Instant.now().plusSeconds(1);
    Instant heartbeat = Instant.EPOCH;
    while (!heartbeat.isAfter(afterError) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      BatchNode node = client.resources(BatchNode.class).withName(NODE).get();
      heartbeat = Times.parse(node.getStatus().getHeartbeatTime());
    }

    assertThat(readings.get()).isGreaterThan(2);
    assertThat(heartbeat).isAfter(afterError);
  }
}
