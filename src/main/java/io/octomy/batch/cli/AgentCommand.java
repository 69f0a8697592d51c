package io.octomy.batch.cli;

import io.octomy.batch.api.Executor;
import io.octomy.batch.policy.NodeMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The node agent: reports what this machine offers and uses, and runs Process jobs. */
@Command(name = "agent", mixinStandardHelpOptions = true,
    description = "Report this machine as a BatchNode (capacity, mode-scaled offers, usage, heartbeat) and, with the Process "
        + "executor, run the jobs admitted to it as local processes.")
public final class AgentCommand implements Callable<Integer> {

  @Option(names = "--node", paramLabel = "NAME", required = true, description = "Name of this machine's BatchNode.")
  String node;

  @Option(names = "--executor", paramLabel = "EXECUTOR", defaultValue = "Process",
      description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Executor executor;

  @Option(names = "--mode", paramLabel = "MODE", defaultValue = "Drone",
      description = "Mode (and own mode) of the BatchNode when the agent creates it: ${COMPLETION-CANDIDATES} "
          + "(default: ${DEFAULT-VALUE}). An existing BatchNode's spec is never rewritten.")
  NodeMode mode;

  @Option(names = "--capacity", paramLabel = "NAME=QTY", converter = CapacityConverter.class,
      description = "Capacity to report instead of what the probe measures, e.g. octomy.io/cpu-milli=8000. Repeatable.")
  List<Map.Entry<String, Long>> capacity = List.of();

  @Option(names = "--kubeconfig", paramLabel = "FILE", description = "Kubeconfig to use (default: the ambient one).")
  Path kubeconfig;

  @Override
  public Integer call() throws Exception {
    System.err.println("agent mode is not available yet in this build");
    return 3;
  }
}
