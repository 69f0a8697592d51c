package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.Executor;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The controller alone in its own JVM, for kill -9 and for its own memory: {@code
 * ControllerProcessMain KUBECONFIG NODES JOBS SEED [EXECUTOR]} (EXECUTOR {@code Pod} unless given).
 * The policy is the fault workload's (same groups and budgets as the suite checks). Prints {@code
 * ACTIVE} once its informers are synced and passes may run.
 */
public final class ControllerProcessMain {
  private ControllerProcessMain() {}

  public static void main(String[] args) throws Exception {
    Config config = Config.fromKubeconfig(Files.readString(Path.of(args[0])));
    Workload w =
        new Workload(
            Integer.parseInt(args[1]),
            Integer.parseInt(args[2]),
            args.length > 4 ? Executor.valueOf(args[4]) : Executor.Pod,
            Long.parseLong(args[3]),
            Duration.ofHours(1));
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    // The suite's timer: a short tick so finished Pods are followed quickly; writes as in
    // production.
    AdmissionLoop.Settings s =
        new AdmissionLoop.Settings(
            Duration.ofMillis(100),
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            AdmissionLoop.Settings.defaults().writeThreads());
    BatchController.start(
        client,
        new BatchController.ControllerOptions(w.policy(), false, "default", "127.0.0.1", -1, s),
        Clock.systemUTC());
    System.out.println("ACTIVE");
    System.out.flush();
    Thread.currentThread().join();
  }
}
