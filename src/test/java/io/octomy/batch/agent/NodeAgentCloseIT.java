package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.fixtures.TcpRelay;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NodeAgent#close()} ends within {@link NodeAgent#STOP_BOUND} whatever the agent waits on:
 * the agent command's shutdown and standalone mode's both close the agent this way.
 */
class NodeAgentCloseIT {

  private static final HostProbe PROBE = () -> new HostReadings(4, 8L << 30, 0, 100, 1L << 30);

  @TempDir Path state;

  @Test
  void aCloseWhileTheStartWaitsOnAServerThatNeverAnswersEndsWithinTheBound() throws Exception {
    try (TcpRelay silent = TcpRelay.silent();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(to(silent)).build()) {
      NodeAgent agent =
          new NodeAgent(
              client,
              AgentSettings.defaults("ws-7").withStateDir(state),
              PROBE,
              Clock.systemUTC(),
              CgroupBounds.NONE,
              state);
      Thread starting = new Thread(startQuietly(agent), "starting");
      starting.setDaemon(true);
      starting.start();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (silent.connections() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(silent.connections()).as("the start's first connection").isPositive();

      long t0 = System.nanoTime();
      agent.close();
      Duration took = Duration.ofNanos(System.nanoTime() - t0);

      assertThat(took).isLessThan(NodeAgent.STOP_BOUND.plusSeconds(1));
      assertThat(starting.isAlive()).as("the start still waits on the server").isTrue();
    }
  }

  private Runnable startQuietly(NodeAgent agent) {
    return () -> {
      try {
        agent.start();
      } catch (RuntimeException e) {
        // The client is closed under it at the end of the test.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
  }

  /** A client of the silent server: no credentials needed, since nothing ever answers. */
  private static Config to(TcpRelay silent) {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl("https://127.0.0.1:" + silent.port())
        .withTrustCerts(true)
        .build();
  }
}
