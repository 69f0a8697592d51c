package io.octomy.batch.realcluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Starts a controller replica as its own process, with the token its Pod would have. */
final class ControllerReplica {
  private ControllerReplica() {}

  static ProductProcess controller(ProductDeployment product, Path policy, String pod)
      throws Exception {
    Path kubeconfig = product.controllerKubeconfig(pod);
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
            "controller",
            "--policy",
            policy.toString(),
            "--leader-election",
            "--lease-namespace",
            ProductDeployment.NS,
            "--metrics-port",
            "-1");
    p.awaitLine("octomy-batch controller watching", Duration.ofSeconds(90));
    return p;
  }
}
