package io.octomy.batch.realcluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Starts an agent as its own process, with the token its DaemonSet Pod would have. */
final class AgentReplica {
  private AgentReplica() {}

  /** A Process agent. */
  static ProductProcess agent(
      ProductDeployment product, Path policy, String node, Map<String, Long> capacity)
      throws Exception {
    return agent(product, policy, node, "Process", capacity);
  }

  /** An agent of {@code executor} (Process or Pod) offering {@code capacity}. */
  static ProductProcess agent(
      ProductDeployment product,
      Path policy,
      String node,
      String executor,
      Map<String, Long> capacity)
      throws Exception {
    Path kubeconfig = product.agentKubeconfig("octomy-batch-agent-" + node, node);
    List<String> args =
        new ArrayList<>(
            List.of(
                "agent",
                "--node",
                node,
                "--executor",
                executor,
                "--mode",
                "Drone",
                "--kubeconfig",
                kubeconfig.toString(),
                "--logs-address",
                "127.0.0.1",
                "--logs-port",
                "0",
                "--state-dir",
                Files.createDirectories(product.dir().resolve("agent-" + node)).toString(),
                "--policy",
                policy.toString()));
    capacity.forEach((k, v) -> args.addAll(List.of("--capacity", k + "=" + v)));
    ProductProcess p =
        ProductProcess.start(
            product.dir().resolve("agent-" + node + ".log"), Map.of(), args.toArray(String[]::new));
    p.awaitLine("agent for node " + node, Duration.ofSeconds(60));
    return p;
  }
}
