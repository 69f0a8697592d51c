package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.Executor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * (b) kill -9 of standalone mode ({@code octomy-batch standalone} in a child JVM) while 8 client
 * threads create BatchJobs as fast as it answers (and its own controller writes their statuses).
 * After each kill it starts again on the same state directory; every create that was acknowledged
 * before the kill must be there.
 */
final class StandaloneKillFault {

  record Result(int rounds, long acknowledged, long lost, long inFlightKept, double seconds) {
    boolean passed() {
      return lost == 0;
    }

    @Override
    public String toString() {
      return String.format(
          "standalone kill -9: %d kills mid-write, %d creates acknowledged before a kill, lost after restart %d"
              + " (%d more, in flight at the kill, were kept); %.0f s",
          rounds, acknowledged, lost, inFlightKept, seconds);
    }
  }

  private StandaloneKillFault() {}

  static Result run(Path work, int rounds, long seed) throws Exception {
    long t0 = System.nanoTime();
    Random random = new Random(seed);
    Path state = work.resolve("state");
    Set<String> acked = ConcurrentHashMap.newKeySet();
    Set<String> attempted = ConcurrentHashMap.newKeySet();
    Workload w = new Workload(1, 1, Executor.Process, seed, Duration.ofSeconds(60));
    AtomicInteger next = new AtomicInteger();
    long lost = 0;
    for (int round = 0; round <= rounds; round++) {
      // --mode Off: the local node offers nothing, so the jobs wait (NoNodeFits) instead of
      // running.
      try (ChildJvm standalone =
          ChildJvm.start(
              work.resolve("standalone-" + round + ".log"),
              "512m",
              "io.octomy.batch.Main",
              "standalone",
              "--state-dir",
              state.toString(),
              "--mode",
              "Off",
              "--node",
              "local")) {
        Path kubeconfig =
            Path.of(standalone.awaitLine("export KUBECONFIG=", Duration.ofSeconds(90)));
        try (KubernetesClient client =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(Config.fromKubeconfig(Files.readString(kubeconfig)))
                        // No retries: a create that fails because the server died must fail now,
                        // not in 20 s.
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build()) {
          // Everything acknowledged in earlier rounds must have survived the kills.
          Set<String> present = new HashSet<>();
          client
              .resources(BatchJob.class)
              .inNamespace("default")
              .list()
              .getItems()
              .forEach(j -> present.add(j.getMetadata().getName()));
          lost = acked.stream().filter(n -> !present.contains(n)).count();
          if (lost > 0 || round == rounds) {
            long kept =
                attempted.stream().filter(n -> !acked.contains(n) && present.contains(n)).count();
            return new Result(round, acked.size(), lost, kept, (System.nanoTime() - t0) / 1e9);
          }
          AtomicBoolean stop = new AtomicBoolean();
          List<Thread> writers = new ArrayList<>();
          for (int t = 0; t < 8; t++) {
            Thread th =
                new Thread(
                    () -> {
                      while (!stop.get()) {
                        BatchJob j = w.job(7);
                        j.getSpec().setAfter(null);
                        j.getSpec().setOrigin(null);
                        String name = String.format("kill-%06d", next.getAndIncrement());
                        j.getMetadata().setName(name);
                        j.getMetadata().setNamespace("default");
                        attempted.add(name);
                        try {
                          client
                              .resources(BatchJob.class)
                              .inNamespace("default")
                              .resource(j)
                              .create();
                          acked.add(name); // only once the server has answered 201
                        } catch (RuntimeException e) {
                          return; // the server is gone
                        }
                      }
                    });
            th.setDaemon(true);
            writers.add(th);
            th.start();
          }
          Thread.sleep(1000 + random.nextInt(2000));
          standalone.kill9();
          stop.set(true);
          for (Thread th : writers) {
            th.join(5000);
          }
        }
      }
    }
    throw new IllegalStateException("unreachable");
  }
}
