package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.fixtures.ProductCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * spec.replicas on standalone through stock kubectl, with a second agent ({@code octomy-batch agent
 * --node ws-b --kubeconfig}) against standalone's server: a gang of 2 whose request needs both
 * nodes runs one replica on each, each printing its index, the count and the node list, and
 * succeeds; {@code kubectl octomy logs --replica} reads the replica kept on standalone's machine.
 */
class GangsE2E {

  private static final String GANG =
      """
      apiVersion: batch.octomy.io/v1alpha1
      kind: BatchJob
      metadata: {name: mesh}
      spec:
        replicas: 2
        resources:
          requests: {octomy.io/cpu-milli: 1000}
        template:
          spec:
            containers:
            - name: main
              image: unused
              command: [sh, -c, 'echo replica $OCTOMY_REPLICA_INDEX of $OCTOMY_REPLICA_COUNT on $OCTOMY_REPLICA_NODES']
      """;

  @TempDir Path dir;

  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stopAgents() throws InterruptedException {
    ProductCommand.killAll(started);
  }

  private static String status(Kubectl k, String field) {
    return k.run("get", "bj", "mesh", "-o", "jsonpath={.status." + field + "}").out();
  }

  @Test
  void aGangOfTwoRunsOneReplicaOnEachNodeAndSucceeds() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "ws-a",
            "--capacity",
            "octomy.io/cpu-milli=1000")) {
      Path agentState = dir.resolve("agent-b");
      Process agent =
          ProductCommand.of(
                  dir.resolve("agent-b.log"),
                  "agent",
                  "--node",
                  "ws-b",
                  "--kubeconfig",
                  sa.kubeconfig.toString(),
                  "--logs-address",
                  "127.0.0.1",
                  "--logs-port",
                  "0",
                  "--state-dir",
                  agentState.toString(),
                  "--capacity",
                  "octomy.io/cpu-milli=1000")
              .start();
      started.add(agent);
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));
      Eventually.until(
          Duration.ofSeconds(60),
          "node ws-b to be ready",
          () ->
              k.run(
                      "get",
                      "bn",
                      "ws-b",
                      "-o",
                      "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")
                  .out()
                  .equals("True"));

      Path manifest = Files.writeString(dir.resolve("mesh.yaml"), GANG);
      Kubectl.Result applied = k.run("apply", "-f", manifest.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(60),
          "mesh to finish",
          () -> List.of("Succeeded", "Failed").contains(status(k, "phase")));
      assertThat(status(k, "phase")).as(status(k, "message")).isEqualTo("Succeeded");
      List<String> nodes = List.of(status(k, "replicaNodes[*]").split(" "));
      assertThat(nodes).as("one replica on each node").containsExactlyInAnyOrder("ws-a", "ws-b");
      String told = "of 2 on " + String.join(",", nodes);

      int onA = nodes.indexOf("ws-a");
      int onB = nodes.indexOf("ws-b");
      Path bin = Files.createDirectories(dir.resolve("bin"));
      Files.copy(
          Path.of("target", "kubectl-octomy").toAbsolutePath(), bin.resolve("kubectl-octomy"));
      assertThat(bin.resolve("kubectl-octomy").toFile().setExecutable(true)).isTrue();
      Kubectl.Result logs =
          k.withPluginsFrom(bin).run("octomy", "logs", "mesh", "--replica", "" + onA);
      assertThat(logs.exitCode()).as(logs.all()).isZero();
      assertThat(logs.out().trim()).isEqualTo("replica " + onA + " " + told);

      // Replica on ws-b: its own agent keeps its output; standalone's server says where.
      String uid = k.run("get", "bj", "mesh", "-o", "jsonpath={.metadata.uid}").out();
      Path fileB =
          agentState
              .resolve("jobs")
              .resolve("default")
              .resolve("mesh")
              .resolve(onB == 0 ? uid : uid + ".replica" + onB)
              .resolve("output.log");
      assertThat(Files.readString(fileB).trim()).isEqualTo("replica " + onB + " " + told);
      Kubectl.Result elsewhere =
          k.withPluginsFrom(bin).run("octomy", "logs", "mesh", "--replica", "" + onB);
      assertThat(elsewhere.exitCode()).isNotZero();
      assertThat(elsewhere.err()).contains("kept on node ws-b");
    }
  }
}
