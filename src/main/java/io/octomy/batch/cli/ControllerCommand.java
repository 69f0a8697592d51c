package io.octomy.batch.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.vocabulary.Policy;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The admission controller against a cluster (ambient kubeconfig or in-cluster config). */
@Command(
    name = "controller",
    mixinStandardHelpOptions = true,
    description =
        "Run the admission controller against the cluster of the ambient kubeconfig or the in-cluster config.")
public final class ControllerCommand implements Callable<Integer> {

  @Mixin PolicyOption policy;

  @Option(
      names = "--leader-election",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "Hold a Lease so only one replica decides (default: ${DEFAULT-VALUE}).")
  boolean leaderElection;

  @Option(
      names = "--lease-namespace",
      paramLabel = "NS",
      description = "Namespace of the Lease (default: $POD_NAMESPACE, else default).")
  String leaseNamespace;

  @Option(
      names = "--metrics-port",
      paramLabel = "N",
      defaultValue = "8080",
      description =
          "Port of /metrics, /healthz and /readyz; -1 turns them off (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Override
  public Integer call() throws Exception {
    Policy p = policy.load();
    String ns =
        leaseNamespace != null
            ? leaseNamespace
            : System.getenv().getOrDefault("POD_NAMESPACE", "default");
    KubernetesClient client = new KubernetesClientBuilder().build();
    BatchController controller =
        BatchController.start(
            client,
            new BatchController.ControllerOptions(
                p, leaderElection, ns, "0.0.0.0", metricsPort, AdmissionLoop.Settings.defaults()),
            Clock.systemUTC());
    System.out.println(
        "octomy-batch controller watching "
            + BatchController.watches()
            + " on "
            + client.getConfiguration().getMasterUrl()
            + (metricsPort >= 0 ? "; metrics on :" + controller.metricsPort() : ""));
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  controller.close();
                  client.close();
                  stop.countDown();
                }));
    stop.await();
    return 0;
  }
}
