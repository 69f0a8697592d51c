package io.octomy.batch.realcluster;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Plays the kubelet of one node, as far as the API server can see: a Pod bound to the node goes to
 * Running, then ends Succeeded (or Failed with the code of a command {@code exit N}); a command
 * {@code sleep infinity} keeps running. A Pod being deleted is ended as a kubelet ends it (its
 * container killed: Failed, exit code 137) and then removed with a zero grace period, which is what
 * lets a graceful delete of a bound Pod finish.
 */
final class StandInKubelet implements AutoCloseable {

  private final KubernetesClient client;
  private final String node;
  private final SharedIndexInformer<Pod> informer;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  StandInKubelet(KubernetesClient client, String node) {
    this.client = client;
    this.node = node;
    this.informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", node)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod p) {
                    timer.schedule(() -> start(p), 300, TimeUnit.MILLISECONDS);
                  }

                  @Override
                  public void onUpdate(Pod before, Pod after) {
                    if (after.getMetadata().getDeletionTimestamp() != null) {
                      timer.execute(() -> kill(after));
                    }
                  }

                  @Override
                  public void onDelete(Pod p, boolean unknown) {}
                });
  }

  private void start(Pod p) {
    if (!write(p, "Running", null)) {
      return;
    }
    String command = String.join(" ", p.getSpec().getContainers().get(0).getCommand());
    if (command.contains("sleep infinity")) {
      return;
    }
    int exit =
        command.matches(".*exit \\d+.*")
            ? Integer.parseInt(command.replaceAll(".*exit (\\d+).*", "$1"))
            : 0;
    timer.schedule(() -> write(p, exit == 0 ? "Succeeded" : "Failed", exit), 1, TimeUnit.SECONDS);
  }

  private void kill(Pod p) {
    write(p, "Failed", 137);
    try {
      client
          .pods()
          .inNamespace(p.getMetadata().getNamespace())
          .withName(p.getMetadata().getName())
          .withGracePeriod(0)
          .delete();
    } catch (KubernetesClientException e) {
      // already gone
    }
  }

  /** Writes the Pod's status; false when the Pod is gone or already ended. */
  private boolean write(Pod seen, String phase, Integer exitCode) {
    String ns = seen.getMetadata().getNamespace();
    String name = seen.getMetadata().getName();
    for (int attempt = 0; attempt < 5; attempt++) {
      try {
        Pod pod = client.pods().inNamespace(ns).withName(name).get();
        if (pod == null || !node.equals(pod.getSpec().getNodeName())) {
          return false;
        }
        String current = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(current) || "Failed".equals(current)) {
          return false;
        }
        String now = Times.format(Instant.now());
        String started =
            pod.getStatus() != null && pod.getStatus().getStartTime() != null
                ? pod.getStatus().getStartTime()
                : now;
        var state = new ContainerStateBuilder();
        if (exitCode == null) {
          state.withNewRunning().withStartedAt(started).endRunning();
        } else {
          state
              .withNewTerminated()
              .withExitCode(exitCode)
              .withReason(exitCode == 0 ? "Completed" : "Error")
              .withStartedAt(started)
              .withFinishedAt(now)
              .endTerminated();
        }
        pod.setStatus(
            new PodStatusBuilder()
                .withPhase(phase)
                .withStartTime(started)
                .withContainerStatuses(
                    List.of(
                        new ContainerStatusBuilder()
                            .withName(pod.getSpec().getContainers().get(0).getName())
                            .withImage(pod.getSpec().getContainers().get(0).getImage())
                            .withImageID("")
                            .withReady(exitCode == null)
                            .withRestartCount(0)
                            .withState(state.build())
                            .build()))
                .build());
        client.pods().inNamespace(ns).resource(pod).updateStatus();
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          return false;
        }
      }
    }
    return false;
  }

  @Override
  public void close() {
    informer.close();
    timer.shutdownNow();
  }
}
