package io.octomy.batch.controller.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.LogEndpoint;
import io.octomy.batch.tls.SelfSignedCertificate;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the controller answers when a node's agent cannot give a job's output: one sentence naming
 * the node, the address and what to check, at once, never a hang or a stack trace.
 */
class AgentOutputFetchTest {

  private static final AgentOutputs.OutputRun RUN =
      new AgentOutputs.OutputRun("team-a", "solve", "uid-1", 1, 0);

  @Test
  void anAgentThatDoesNotListenIsNamedWithItsAddressAndWhatToCheck() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort(); // nothing listens there once it is closed
    }
    String pem =
        SelfSignedCertificate.create(
                "127.0.0.1", List.of(), List.of("127.0.0.1"), Duration.ofDays(1))
            .certificatePem();
    AgentOutputFetch fetch = fetch(node(new LogEndpoint("127.0.0.1", closed, pem)));
    long t0 = System.nanoTime();
    VisibilityException e =
        (VisibilityException) catchThrowable(() -> fetch.read("ws-7", RUN, null, null));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(6));
    assertThat(e.code()).isEqualTo(503);
    assertThat(e.getMessage())
        .isEqualTo(
            "cannot read the output of batchjob solve from node ws-7's agent at 127.0.0.1:"
                + closed
                + " (connection refused): check that its agent runs (kubectl get bn ws-7) and that"
                + " this controller can reach 127.0.0.1:"
                + closed
                + " (a firewall, or the agent's --logs-host).");
  }

  @Test
  void aNodeWhoseAgentServesNoOutputSaysWhereTheOutputIs() {
    VisibilityException e =
        (VisibilityException) catchThrowable(() -> fetch(node(null)).read("ws-7", RUN, null, null));
    assertThat(e.code()).isEqualTo(404);
    assertThat(e.getMessage())
        .startsWith(
            "the output of batchjob solve is kept on node ws-7, whose agent serves no output")
        .contains("--logs-port -1")
        .endsWith("(kubectl describe bj solve).");
  }

  @Test
  void aNodeThatIsGoneIsSaid() {
    AgentOutputFetch fetch = new AgentOutputFetch(n -> Optional.empty(), n -> "token");
    VisibilityException e =
        (VisibilityException) catchThrowable(() -> fetch.read("ws-7", RUN, null, null));
    assertThat(e.code()).isEqualTo(404);
    assertThat(e.getMessage()).contains("ran on node ws-7, which is gone (no BatchNode ws-7)");
  }

  private static BatchNode node(LogEndpoint endpoint) {
    BatchNode node = new BatchNode();
    node.getMetadata().setName("ws-7");
    node.setStatus(new BatchNodeStatus());
    node.getStatus().setLogEndpoint(endpoint);
    return node;
  }

  private static AgentOutputFetch fetch(BatchNode node) {
    return new AgentOutputFetch(n -> Optional.of(node), n -> "token");
  }
}
