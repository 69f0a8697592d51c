package io.octomy.batch.realcluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Starts a controller replica as its own process, with the token its Pod would have. */
final class ControllerReplica {
  private ControllerReplica() {}

  /** With {@code extra} arguments after the usual ones. */
  static ProductProcess controller(
      ProductDeployment product, Path policy, String pod, String... extra) throws Exception {
    return controller(product, policy, pod, -1, extra);
  }

  /** With /metrics, /healthz and /readyz on {@code metricsPort} (-1: off). */
  static ProductProcess controller(
      ProductDeployment product, Path policy, String pod, int metricsPort, String... extra)
      throws Exception {
    Path kubeconfig = product.controllerKubeconfig(pod);
    List<String> args =
        new ArrayList<>(
            List.of(
                "controller",
                "--policy",
                policy.toString(),
                "--leader-election",
                "--lease-namespace",
                ProductDeployment.NS,
                "--metrics-port",
                String.valueOf(metricsPort)));
    args.addAll(List.of(extra));
    ProductProcess p =
        ProductProcess.start(
            product.dir().resolve(pod + "-" + System.nanoTime() + ".log"),
            Map.of(
                "KUBECONFIG",
                kubeconfig.toString(),
                "POD_NAME",
                pod,
                "POD_NAMESPACE",
                ProductDeployment.NS),
            args.toArray(String[]::new));
    p.awaitLine("octomy-batch controller watching", Duration.ofSeconds(90));
    return p;
  }
}
