package io.octomy.batch.cli;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.agent.NodeAgent;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.fixtures.ProductCommand;
import io.octomy.batch.fixtures.TcpRelay;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code octomy-batch agent} as its own process when its API server goes away. Stopped with SIGTERM
 * while the server does not answer, it ends within {@link NodeAgent#STOP_BOUND} whatever it was
 * waiting on, and the jobs it runs keep running for the next agent to re-adopt. Its connections
 * cut, as when the server dies, it makes them again and logs no stack trace for it.
 */
class AgentServerLossE2E {

  private static final String NODE = "ws-1";
  private static final String NS = "studio";

  /** The JVM's own exit after the stop: its shutdown hook's last steps and the process's end. */
  private static final Duration EXIT_MARGIN = Duration.ofSeconds(5);

  @TempDir Path dir;

  private final List<Process> started = new ArrayList<>();
  private final List<ProcessHandle> jobProcesses = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    ProductCommand.killAll(started);
    jobProcesses.forEach(ProcessHandle::destroyForcibly);
  }

  @Test
  void anAgentStartingAgainstAServerThatNeverAnswersStopsWithinTheBound() throws Exception {
    try (EmbeddedApiServer server = server();
        TcpRelay silent = TcpRelay.silent()) {
      Path kubeconfig = relayedKubeconfig(server, silent);
      Process agent = agent(kubeconfig, "agent.log");
      // Its first request is under way: the shutdown hook is in place, the start waits.
      Eventually.until(
          Duration.ofSeconds(60), "the agent's first connection", () -> silent.connections() > 0);

      agent.destroy();

      assertThat(agent.waitFor(NodeAgent.STOP_BOUND.plus(EXIT_MARGIN).toMillis(), MILLISECONDS))
          .as("stopped within %s:\n%s", NodeAgent.STOP_BOUND, log("agent.log"))
          .isTrue();
      assertThat(log("agent.log").lines().filter(l -> l.contains("gave up stopping")))
          .singleElement()
          .asString()
          .contains("waiting for its start");
    }
  }

  @Test
  void anAgentWhoseServerStopsAnsweringStopsWithinTheBoundAndItsJobRunsOn() throws Exception {
    try (EmbeddedApiServer server = server();
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
        TcpRelay relay = TcpRelay.to(server.port())) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
      Path kubeconfig = relayedKubeconfig(server, relay);
      Process agent = agent(kubeconfig, "first.log");
      awaitLine("first.log", "agent for node " + NODE);
      admit(client, "long", "sleep", "300");
      Eventually.until(
          Duration.ofSeconds(30), "the job running", () -> reportedRunning(client, "long"));
      jobProcesses.addAll(agent.descendants().toList());
      assertThat(jobProcesses).isNotEmpty();

      relay.silence();
      // A report is under way and will never be answered.
      Eventually.until(
          Duration.ofSeconds(30), "a request to the silent server", () -> swallowed(relay));
      agent.destroy();

      assertThat(agent.waitFor(NodeAgent.STOP_BOUND.plus(EXIT_MARGIN).toMillis(), MILLISECONDS))
          .as("stopped within %s:\n%s", NodeAgent.STOP_BOUND, log("first.log"))
          .isTrue();
      assertThat(jobProcesses).as("the job's processes").allMatch(ProcessHandle::isAlive);

      // The next agent on the same state directory takes the job over, without starting it again.
      agent(server.kubeconfig(), "second.log");
      awaitLine("second.log", "agent for node " + NODE);
      assertThat(log("second.log")).contains("re-adopted job " + NS + "/long (");
      assertThat(reportedRunning(client, "long")).isTrue();
      assertThat(jobProcesses).allMatch(ProcessHandle::isAlive);
    }
  }

  @Test
  void connectionsCutByADyingServerAreMadeAgainWithoutAStackTraceInTheLog() throws Exception {
    try (EmbeddedApiServer server = server();
        KubernetesClient client =
            new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
        TcpRelay relay = TcpRelay.to(server.port())) {
      agent(relayedKubeconfig(server, relay), "agent.log");
      awaitLine("agent.log", "agent for node " + NODE);

      relay.cut(); // the agent's watches end without a close frame, as when a server is killed
      // Its node's watch is back once a spec change reaches the agent: its next report shows it.
      client
          .resources(BatchNode.class)
          .withName(NODE)
          .edit(
              n -> {
                n.getSpec().setMode(NodeMode.Off);
                return n;
              });
      Eventually.until(
          Duration.ofSeconds(60), "the offer of mode Off", () -> offersNothing(client));

      assertThat(log("agent.log").lines().filter(l -> l.startsWith("\tat ")))
          .as("stack frames in the agent's log:\n%s", log("agent.log"))
          .isEmpty();
      assertThat(log("agent.log").lines().filter(l -> l.contains("unstable version")))
          .as("the client library's warning about our own API version, on every start")
          .isEmpty();
    }
  }

  private static boolean offersNothing(KubernetesClient client) {
    BatchNodeStatus status = client.resources(BatchNode.class).withName(NODE).get().getStatus();
    return Long.valueOf(0).equals(status.getOffer().getOthers().get(ApiFixtures.CPU));
  }

  private static boolean swallowed(TcpRelay relay) {
    return relay.swallowedFromClients() > 0;
  }

  /** Plays the controller: creates the job and admits it to this node. */
  private static void admit(KubernetesClient client, String name, String... command) {
    BatchJob job =
        client
            .resources(BatchJob.class)
            .inNamespace(NS)
            .resource(
                ApiFixtures.aJob(name)
                    .namespace(NS)
                    .command(command)
                    .request(ApiFixtures.CPU, 100)
                    .build())
            .create();
    BatchJobStatus status = new BatchJobStatus();
    status.setNode(NODE);
    status.setPhase(JobPhase.Admitted);
    job.setStatus(status);
    client.resources(BatchJob.class).inNamespace(NS).resource(job).updateStatus();
  }

  private static boolean reportedRunning(KubernetesClient client, String name) {
    return Optional.ofNullable(client.resources(BatchNode.class).withName(NODE).get())
        .map(BatchNode::getStatus)
        .map(BatchNodeStatus::getJobs)
        .orElse(List.<NodeJob>of())
        .stream()
        .anyMatch(j -> name.equals(j.getName()) && j.getPhase() == JobPhase.Running);
  }

  private Process agent(Path kubeconfig, String logName) throws IOException {
    ProcessBuilder pb =
        ProductCommand.of(
            dir.resolve(logName),
            "agent",
            "--node",
            NODE,
            "--kubeconfig",
            kubeconfig.toString(),
            "--logs-address",
            "127.0.0.1",
            "--logs-port",
            "0",
            "--state-dir",
            dir.resolve("agent").toString(),
            "--capacity",
            ApiFixtures.CPU + "=1000");
    Process p = pb.start();
    started.add(p);
    return p;
  }

  private EmbeddedApiServer server() {
    return EmbeddedApiServer.start(dir.resolve("server"), 0, StandaloneRuntime.productCrds());
  }

  /** The server's kubeconfig with the relay's address: its credentials, the relay's answers. */
  private Path relayedKubeconfig(EmbeddedApiServer server, TcpRelay relay) throws IOException {
    String own = Files.readString(server.kubeconfig());
    String relayed = own.replace(server.url().toString(), "https://127.0.0.1:" + relay.port());
    assertThat(relayed).isNotEqualTo(own);
    return Files.writeString(dir.resolve("relayed-kubeconfig"), relayed);
  }

  private String log(String name) throws IOException {
    Path f = dir.resolve(name);
    return Files.exists(f) ? Files.readString(f) : "";
  }

  private void awaitLine(String logName, String marker) throws Exception {
    Eventually.until(
        Duration.ofSeconds(60),
        "'" + marker + "' in " + logName,
        () -> {
          try {
            return log(logName).contains(marker);
          } catch (IOException e) {
            return false;
          }
        });
  }
}
