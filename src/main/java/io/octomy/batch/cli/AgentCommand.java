package io.octomy.batch.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.octomy.batch.agent.AgentSettings;
import io.octomy.batch.agent.JobOutputServer;
import io.octomy.batch.agent.NodeAgent;
import io.octomy.batch.agent.OshiHostProbe;
import io.octomy.batch.api.Executor;
import io.octomy.batch.vocabulary.FieldManagers;
import io.octomy.batch.vocabulary.NodeMode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The node agent: reports what this machine offers and uses, and runs Process jobs. */
@Command(
    name = "agent",
    mixinStandardHelpOptions = true,
    description =
        "Report this machine as a BatchNode (capacity, mode-scaled offers, usage, heartbeat) and, with the Process "
            + "executor, run the jobs admitted to it as local processes.")
public final class AgentCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--node",
      paramLabel = "NAME",
      required = true,
      description = "Name of this machine's BatchNode.")
  String node;

  @Option(
      names = "--executor",
      paramLabel = "EXECUTOR",
      defaultValue = "Process",
      description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Executor executor;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      defaultValue = "Drone",
      description =
          "Mode (and own mode) of the BatchNode when the agent creates it: ${COMPLETION-CANDIDATES} "
              + "(default: ${DEFAULT-VALUE}). An existing BatchNode's spec is never rewritten.")
  NodeMode mode;

  @Option(
      names = "--capacity",
      paramLabel = "NAME=QTY",
      converter = CapacityConverter.class,
      description =
          "Capacity to report instead of what the probe measures, e.g. octomy.io/cpu-milli=8000. Repeatable.")
  List<Map.Entry<String, Long>> capacity = List.of();

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "Kubeconfig to use (default: the ambient one).")
  Path kubeconfig;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      defaultValue = ".octomy-agent",
      description =
          "Where the Process executor keeps job state and output logs (default: ${DEFAULT-VALUE}). "
              + "Keep it across restarts: it is how a restarted agent re-adopts its jobs and never runs one twice.")
  Path stateDir;

  @Option(
      names = "--logs-port",
      paramLabel = "N",
      description =
          "HTTPS port where a Process agent serves its jobs' output to the visibility API (kubectl"
              + " octomy logs), for the controller's account only; 0 takes any free port, -1 turns"
              + " it off (default: "
              + JobOutputServing.DEFAULT_PORT
              + ").")
  Integer logsPort;

  @Option(
      names = "--logs-address",
      paramLabel = "ADDR",
      defaultValue = "0.0.0.0",
      description = "Address the output server listens on (default: ${DEFAULT-VALUE}).")
  String logsAddress;

  @Option(
      names = "--logs-host",
      paramLabel = "HOST",
      description =
          "Host name or IP address the controller reaches the output server at, published in the"
              + " BatchNode's status.logEndpoint (default: --logs-address, or this machine's host"
              + " name when that is 0.0.0.0).")
  String logsHost;

  /**
   * The mode table for the offers this node shows; the controller's policy should be the same file.
   */
  @picocli.CommandLine.Mixin PolicyOption policy;

  /**
   * Runs the agent until the process is interrupted (SIGTERM, Ctrl-C); running jobs keep running.
   */
  @Override
  public Integer call() throws Exception {
    CommandChecks.nodeName(spec, "--node", node);
    if (logsPort != null) {
      CommandChecks.port(spec, "--logs-port", logsPort, true);
    }
    if (kubeconfig != null) {
      CommandChecks.readableFile(spec, "--kubeconfig", kubeconfig);
    }
    Config config =
        kubeconfig != null
            ? Config.fromKubeconfig(kubeconfig.toFile())
            : Config.autoConfigure(null);
    config.setUserAgent(FieldManagers.userAgent(FieldManagers.AGENT));
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    AgentSettings settings =
        AgentSettings.defaults(node)
            .withExecutor(executor)
            .withInitialMode(mode)
            .withCapacityOverrides(overrides())
            .withStateDir(stateDir)
            .withModeTable(policy.load().modes());
    NodeAgent agent = new NodeAgent(client, settings, new OshiHostProbe(), Clock.systemUTC());
    JobOutputServer output =
        executor == Executor.Process
            ? JobOutputServing.start(client, agent, node, stateDir, logsAddress, logsHost, logsPort)
            : null;
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // Leaves running processes running; the next agent on this state directory
                  // re-adopts them. Ends within NodeAgent.STOP_BOUND even when the server does
                  // not answer: what still waits on it is left to end with the process.
                  agent.close();
                  if (output != null) {
                    output.close();
                  }
                  client.close();
                  stopped.countDown();
                },
                "octomy-agent-shutdown"));
    try {
      agent.start();
    } catch (KubernetesClientException e) {
      System.err.println(
          "cannot report node " + node + " to " + config.getMasterUrl() + ": " + e.getMessage());
      return 1;
    }
    System.out.println(
        "agent for node "
            + node
            + " (executor "
            + executor
            + ") reports to "
            + config.getMasterUrl()
            + "; state in "
            + stateDir.toAbsolutePath().normalize());
    stopped.await();
    return 0;
  }

  private Map<String, Long> overrides() {
    Map<String, Long> m = new LinkedHashMap<>();
    capacity.forEach(e -> m.put(e.getKey(), e.getValue())); // a repeated name: the last one wins
    return m;
  }
}
