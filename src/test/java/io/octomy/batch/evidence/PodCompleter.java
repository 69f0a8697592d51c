package io.octomy.batch.evidence;

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
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Plays the kubelet: every job Pod that appears succeeds after a short random run. */
final class PodCompleter implements AutoCloseable {

  private final KubernetesClient client;
  private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
  private final SharedIndexInformer<Pod> informer;
  private final Random random;
  private final AtomicLong completed = new AtomicLong();

  PodCompleter(KubernetesClient client, long seed, int minMillis, int maxMillis) {
    this.client = client;
    this.random = new Random(seed);
    this.informer =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod p) {
                    int delay;
                    synchronized (random) {
                      delay = minMillis + random.nextInt(Math.max(1, maxMillis - minMillis));
                    }
                    timer.schedule(
                        () -> succeed(p.getMetadata().getNamespace(), p.getMetadata().getName()),
                        delay,
                        TimeUnit.MILLISECONDS);
                  }

                  @Override
                  public void onUpdate(Pod a, Pod b) {}

                  @Override
                  public void onDelete(Pod p, boolean unknown) {}
                });
  }

  private void succeed(String ns, String name) {
    for (int attempt = 0; attempt < 5; attempt++) {
      try {
        Pod pod = client.pods().inNamespace(ns).withName(name).get();
        if (pod == null
            || (pod.getStatus() != null && "Succeeded".equals(pod.getStatus().getPhase()))) {
          return;
        }
        String now = Times.format(Instant.now());
        pod.setStatus(
            new PodStatusBuilder()
                .withPhase("Succeeded")
                .withStartTime(now)
                .withContainerStatuses(
                    new ContainerStatusBuilder()
                        .withName("main")
                        .withState(
                            new ContainerStateBuilder()
                                .withNewTerminated()
                                .withExitCode(0)
                                .withFinishedAt(now)
                                .endTerminated()
                                .build())
                        .build())
                .build());
        client.pods().inNamespace(ns).resource(pod).updateStatus();
        completed.incrementAndGet();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          return;
        }
      }
    }
  }

  long completed() {
    return completed.get();
  }

  @Override
  public void close() {
    informer.close();
    timer.shutdownNow();
  }
}
