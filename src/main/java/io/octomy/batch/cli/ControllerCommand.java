package io.octomy.batch.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.OperatorException;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.controller.UninstallGuard;
import io.octomy.batch.controller.aggregated.AggregatedVisibility;
import io.octomy.batch.controller.aggregated.ServingReplica;
import io.octomy.batch.vocabulary.CannotStart;
import io.octomy.batch.vocabulary.FieldManagers;
import io.octomy.batch.vocabulary.Policy;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The admission controller against a cluster (ambient kubeconfig or in-cluster config). */
@Command(
    name = "controller",
    mixinStandardHelpOptions = true,
    description =
        "Run the admission controller against the cluster of the ambient kubeconfig or the in-cluster config.")
public final class ControllerCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(ControllerCommand.class);

  @Mixin PolicyOption policy;

  @Option(
      names = "--leader-election",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "Hold a Lease so only one replica decides (default: ${DEFAULT-VALUE}).")
  boolean leaderElection;

  /** Where the chart and manifests/ install the controller, and so where its account may lease. */
  static final String INSTALL_NAMESPACE = "octomy-system";

  @Option(
      names = "--lease-namespace",
      paramLabel = "NS",
      description =
          "Namespace of the Lease, and of the visibility Service (default: $POD_NAMESPACE, else "
              + INSTALL_NAMESPACE
              + ", where the chart installs the controller).")
  String leaseNamespace;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "Kubeconfig to use (default: the ambient one, or the in-cluster config).")
  Path kubeconfig;

  @Spec CommandSpec spec;

  @Option(
      names = "--uninstall-guard",
      paramLabel = "NAME",
      defaultValue = "octomy-batch-controller",
      description =
          "The controller's ServiceAccount (in the Lease's namespace), ClusterRole and"
              + " ClusterRoleBinding, all named NAME as the chart names them: while one of them is"
              + " being deleted (an uninstall), the controller stops deciding and releases every"
              + " BatchJob first; an empty NAME turns this off (default: ${DEFAULT-VALUE}).")
  String uninstallGuard;

  @Option(
      names = "--metrics-port",
      paramLabel = "N",
      defaultValue = "8080",
      description =
          "Port of /metrics, /healthz and /readyz; -1 turns them off (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(
      names = "--visibility-port",
      paramLabel = "N",
      defaultValue = "-1",
      description =
          "Port of the aggregated visibility API (HTTPS; the chart uses 8443); -1 turns it off"
              + " (default: ${DEFAULT-VALUE}).")
  int visibilityPort;

  @Option(
      names = "--visibility-service",
      paramLabel = "NAME",
      defaultValue = "octomy-batch-visibility",
      description =
          "The Service the APIService names, in the Lease's namespace: its names go into the"
              + " serving certificate (default: ${DEFAULT-VALUE}).")
  String visibilityService;

  @Override
  public Integer call() throws Exception {
    CommandChecks.port(spec, "--metrics-port", metricsPort, true);
    CommandChecks.port(spec, "--visibility-port", visibilityPort, true);
    if (kubeconfig != null) {
      CommandChecks.readableFile(spec, "--kubeconfig", kubeconfig);
    }
    Policy p = policy.load();
    String ns = leaseNamespace(leaseNamespace, System.getenv("POD_NAMESPACE"));
    Config config =
        kubeconfig != null
            ? Config.fromKubeconfig(kubeconfig.toFile())
            : Config.autoConfigure(null);
    config.setUserAgent(FieldManagers.userAgent(FieldManagers.CONTROLLER));
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    BatchController controller;
    // A Process job's events suggest kubectl octomy logs where it works: this controller serves
    // the visibility API and the job's node publishes where its agent serves the output.
    AtomicReference<AggregatedVisibility> served = new AtomicReference<>();
    AdmissionLoop.Settings loop =
        AdmissionLoop.Settings.defaults()
            .withLogsServedOn(node -> served.get() != null && served.get().servesOutputOf(node));
    try {
      controller =
          BatchController.start(
              client,
              new BatchController.ControllerOptions(
                  p, leaderElection, ns, "0.0.0.0", metricsPort, loop),
              Clock.systemUTC(),
              visibilityPort >= 0);
    } catch (OperatorException e) {
      if (leaderElection && saysNoPermissionToLease(e)) {
        String server = client.getConfiguration().getMasterUrl();
        client.close();
        throw new CannotStart(
            "the account this controller uses on "
                + server
                + " may not hold a Lease in namespace "
                + ns
                + ". Give --lease-namespace the namespace where it may (the chart's controller"
                + " account may in "
                + INSTALL_NAMESPACE
                + "), or run one replica with --no-leader-election.",
            e);
      }
      throw e;
    }
    AggregatedVisibility visibility = visibility(client, controller, ns);
    served.set(visibility);
    UninstallGuard guard =
        uninstallGuard.isBlank()
            ? null
            : UninstallGuard.start(
                client, ns, uninstallGuard, controller.loop(), controller.caches());
    System.out.println(
        "octomy-batch controller watching "
            + BatchController.watches()
            + " on "
            + client.getConfiguration().getMasterUrl()
            + (metricsPort >= 0 ? "; metrics on :" + controller.metricsPort() : "")
            + (visibility != null ? "; visibility API on :" + visibility.port() : ""));
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (guard != null) {
                    guard.close();
                  }
                  if (visibility != null) {
                    visibility.close();
                  }
                  controller.close();
                  client.close();
                  stop.countDown();
                }));
    stop.await();
    return 0;
  }

  /** JOSDK's words, somewhere in the chain, for a Lease the account may not hold. */
  private static boolean saysNoPermissionToLease(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (String.valueOf(t.getMessage()).contains("No permission to lease")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The Lease's namespace: the flag, else the Pod's namespace, else where the chart installs the
   * controller. Never {@code default} by accident: an out-of-cluster controller must compete for
   * the same Lease as the in-cluster replicas, and its account may lease only there.
   */
  static String leaseNamespace(String flag, String podNamespace) {
    if (flag != null) {
      return flag;
    }
    return podNamespace != null && !podNamespace.isBlank() ? podNamespace : INSTALL_NAMESPACE;
  }

  /**
   * A controller that does not serve the visibility API (outside the cluster, say) beside an
   * APIService that names it: nobody answers kubectl octomy, and the API server keeps namespaces
   * from being deleted. Said once at start with the two ways out.
   */
  private static void sayWhenRegisteredButNotServed(KubernetesClient client) {
    try {
      if (client
              .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
              .withName(ServingReplica.API_SERVICE)
              .get()
          != null) {
        LOG.warn(
            "APIService {} is registered, but this controller does not serve it"
                + " (--visibility-port -1): unless a replica in the cluster does, kubectl octomy"
                + " gets no answer and namespaces being deleted stay Terminating. Serve it with"
                + " --visibility-port, or turn it off (helm upgrade --reuse-values --set"
                + " visibility.enabled=false, or the kustomize component"
                + " manifests/components/without-visibility); see"
                + " docs/deployment.md#controller-and-agents-outside-the-cluster",
            ServingReplica.API_SERVICE);
      }
    } catch (KubernetesClientException e) {
      // Not allowed to read it (a role narrower than the chart's): nothing to say.
    }
  }

  /**
   * The aggregated visibility API, or null when turned off or when the cluster cannot delegate
   * authentication to it (said in the log; the controller decides all the same).
   */
  private AggregatedVisibility visibility(
      KubernetesClient client, BatchController controller, String ns) {
    if (visibilityPort < 0) {
      sayWhenRegisteredButNotServed(client);
      return null;
    }
    try {
      return AggregatedVisibility.start(
          client,
          controller,
          Clock.systemUTC(),
          new AggregatedVisibility.ServingOptions(
              "0.0.0.0", visibilityPort, visibilityService, ns, System.getenv("POD_NAME")));
    } catch (IllegalArgumentException | IllegalStateException | KubernetesClientException e) {
      LOG.error("the visibility API is not served: {}", e.getMessage());
      // Nothing to wait for: readiness follows the decisions alone.
      controller.readiness().requireWhileDeciding(() -> true);
      return null;
    }
  }
}
