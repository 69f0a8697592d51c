package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.fixtures.TestClock;
import java.time.Duration;

/**
 * A drain that is not measured: the workload's jobs created, a controller started on them until
 * every one is decided, then the controller closed and the jobs removed again (their finalizer
 * taken off, then deleted), so the measured run starts on a server that has served the same
 * requests before. Why: the server, its clients and the controller share one JVM, and on two
 * processors its just-in-time compiler takes a third of the first minute; a server that runs for
 * days has long compiled what a drain runs. The measured run with and without it shows both.
 */
final class WarmUpDrain {

  private WarmUpDrain() {}

  /** The controller has a client of its own from {@code server}, as the measured drain's. */
  static void run(
      KubernetesClient client, BenchmarkServer server, Workload w, int writers, Duration timeout)
      throws Exception {
    long t = System.nanoTime();
    Parallel.forEach(w.jobs, writers, i -> create(client, w.job(i)));
    try (DecisionWatch decisions = new DecisionWatch(client);
        KubernetesClient ctlClient = server.controllerClient(b -> {});
        BatchController controller =
            BatchController.start(ctlClient, w.controllerOptions(), TestClock.followingSystem())) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (decisions.decided() < w.jobs) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "warm-up drain: " + decisions.decided() + " of " + w.jobs + " decided in " + timeout);
        }
        Thread.sleep(20);
      }
    }
    Parallel.forEach(w.jobs, writers, i -> remove(client, w.job(i)));
    for (String ns : w.namespaces()) {
      while (!client.resources(BatchJob.class).inNamespace(ns).list().getItems().isEmpty()) {
        Thread.sleep(50);
      }
    }
    System.out.printf(
        "warm-up drain: %d jobs created, decided and removed in %.1f s%n",
        w.jobs, (System.nanoTime() - t) / 1e9);
  }

  private static void create(KubernetesClient client, BatchJob j) {
    client
        .resources(BatchJob.class)
        .inNamespace(j.getMetadata().getNamespace())
        .resource(j)
        .create();
  }

  private static void remove(KubernetesClient client, BatchJob j) {
    var job =
        client
            .resources(BatchJob.class)
            .inNamespace(j.getMetadata().getNamespace())
            .withName(j.getMetadata().getName());
    job.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    job.delete();
  }
}
