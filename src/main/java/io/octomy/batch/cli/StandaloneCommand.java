package io.octomy.batch.cli;

import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * One machine: embedded API server, controller and a local agent in one server JVM (which a
 * launcher starts with a bounded heap when the command gave none: {@link StandaloneLauncher}).
 */
@Command(
    name = "standalone",
    mixinStandardHelpOptions = true,
    description =
        "Run everything on this machine: an embedded API server (state in SQLite), the controller and a local agent "
            + "that runs admitted jobs as processes. Prints the export KUBECONFIG=... line for kubectl.")
public final class StandaloneCommand implements Callable<Integer> {

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      defaultValue = ".octomy",
      description =
          "Where the database, the kubeconfig and job logs live (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(
      names = "--port",
      paramLabel = "N",
      defaultValue = "0",
      description = "Port on 127.0.0.1 for the API server (default: a free one).")
  int port;

  @Option(
      names = "--node",
      paramLabel = "NAME",
      description = "Name of this machine's BatchNode (default: the host name).")
  String node;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      defaultValue = "Drone",
      description =
          "Mode of this machine's BatchNode when it is created: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  NodeMode mode;

  @Option(
      names = "--capacity",
      paramLabel = "NAME=QTY",
      converter = CapacityConverter.class,
      description =
          "Capacity to report instead of what the probe measures, e.g. octomy.io/cpu-milli=8000. Repeatable.")
  List<Map.Entry<String, Long>> capacity = List.of();

  @Mixin PolicyOption policy;

  @Spec CommandSpec spec;

  @Option(
      names = "--metrics-port",
      paramLabel = "N",
      defaultValue = "-1",
      description =
          "Port on 127.0.0.1 for /metrics, /healthz and /readyz; -1 keeps them off (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(
      names = "--rotate-credentials",
      description =
          "Replace the server's certificate and token kept in the state directory by new ones; every"
              + " copy of the kubeconfig must then be replaced (they are otherwise kept across restarts).")
  boolean rotateCredentials;

  @Override
  public Integer call() throws Exception {
    CommandChecks.port(spec, "--port", port, false);
    CommandChecks.port(spec, "--metrics-port", metricsPort, true);
    if (node != null) {
      CommandChecks.nodeName(spec, "--node", node);
    }
    if (StandaloneLauncher.shouldLaunch()) {
      return StandaloneLauncher.launch(
          stateDir,
          spec.root().userObject().getClass().getName(),
          spec.root().commandLine().getParseResult().originalArgs());
    }
    StandaloneLauncher.stopWithLauncher();
    IdleHeapRelease.apply();
    Policy p = policy.load();
    String nodeName = node != null ? node : NodeNames.ofThisHost();
    StandaloneRuntime runtime =
        StandaloneRuntime.start(
            new StandaloneRuntime.StandaloneOptions(
                stateDir, port, nodeName, mode, toMap(capacity), p, metricsPort, rotateCredentials),
            Clock.systemUTC());
    Path kubeconfig = runtime.server().kubeconfig().toAbsolutePath();
    System.out.println(
        "octomy-batch standalone: API server "
            + runtime.server().url()
            + ", node "
            + nodeName
            + ", state in "
            + stateDir.toAbsolutePath().normalize());
    System.out.println("export KUBECONFIG=" + kubeconfig);
    System.out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // Ctrl-C: stop serving and deciding; job processes keep running and are
                  // re-adopted next start.
                  runtime.close();
                  stopped.countDown();
                },
                "standalone-shutdown"));
    stopped.await();
    return 0;
  }

  static Map<String, Long> toMap(List<Map.Entry<String, Long>> entries) {
    Map<String, Long> m = new LinkedHashMap<>();
    entries.forEach(e -> m.put(e.getKey(), e.getValue()));
    return m;
  }
}
