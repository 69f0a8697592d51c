package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.octomy.batch.api.BatchJob;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link WritePathBenchmark} checks on a full store, after its restart: a list read in pages
 * ({@code limit} and {@code continue}), whose pages must take as long at the end as at the start;
 * and a kill -9 of the server's JVM while clients create jobs, after which every create it
 * acknowledged must be served by the next start.
 */
final class AtSizeChecks {

  private static final String JOBS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";

  /** Pages timed at each end of the list. */
  private static final int ENDS = 10;

  private AtSizeChecks() {}

  /** Reads every job in pages of {@code limit}; figures into {@code out}. */
  static void pagedList(Path kubeconfig, int limit, Map<String, String> out) throws Exception {
    RawHttps http = RawHttps.fromKubeconfig(kubeconfig);
    List<Double> pageMs = new ArrayList<>();
    long items = 0;
    String next = null;
    long t0 = System.nanoTime();
    do {
      String path =
          JOBS
              + "?limit="
              + limit
              + (next == null
                  ? ""
                  : "&continue=" + URLEncoder.encode(next, StandardCharsets.UTF_8));
      long t = System.nanoTime();
      RawHttps.Answer page = http.get(path, "application/json");
      pageMs.add((System.nanoTime() - t) / 1e6);
      if (page.code() != 200) {
        throw new IllegalStateException("page " + pageMs.size() + ": " + page.code());
      }
      JsonNode list = page.json();
      items += list.path("items").size();
      next = list.path("metadata").path("continue").asText(null);
    } while (next != null);
    double seconds = (System.nanoTime() - t0) / 1e9;
    int ends = Math.min(ENDS, pageMs.size());
    double first = mean(pageMs.subList(0, ends));
    double last = mean(pageMs.subList(pageMs.size() - ends, pageMs.size()));
    out.put("paged_list_items", Long.toString(items));
    out.put("paged_list_pages", Integer.toString(pageMs.size()));
    out.put("paged_list_items_per_s", String.format("%.0f", items / seconds));
    out.put("paged_list_first_pages_ms", String.format("%.1f", first));
    out.put("paged_list_last_pages_ms", String.format("%.1f", last));
    out.put("paged_list_last_over_first", String.format("%.2f", last / first));
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }

  /**
   * Eight threads create named jobs for {@code seconds}; then the server's JVM (the launcher's
   * child that holds the store) gets SIGKILL. The launcher exits with it. Then a new start on the
   * state.
   *
   * @return the started standalone, for the caller to close
   */
  static ChildJvm killNineWhileCreating(
      ChildJvm standalone,
      Config config,
      java.util.concurrent.Callable<ChildJvm> restart,
      double seconds,
      Map<String, String> out)
      throws Exception {
    Set<String> acked = ConcurrentHashMap.newKeySet();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    String run = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
    AtomicBoolean stop = new AtomicBoolean();
    Config noRetry = new ConfigBuilder(config).withRequestRetryBackoffLimit(0).build();
    List<Thread> writers = new ArrayList<>();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(noRetry).build()) {
      for (int t = 0; t < 8; t++) {
        Thread th =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    // a run of its own: a kept state may hold the names of a run before
                    String name = String.format("kill-%s-%06d", run, next.getAndIncrement());
                    BatchJob j = QueueBenchmark.waitingJob(name);
                    try {
                      client.resources(BatchJob.class).inNamespace("default").resource(j).create();
                      acked.add(name); // only once the server answered 201
                    } catch (KubernetesClientException e) {
                      if (e.getCode() != 403) {
                        return; // the server is gone
                      }
                      refused.incrementAndGet(); // its heap is full: it refuses new objects
                    }
                  }
                });
        th.setDaemon(true);
        writers.add(th);
        th.start();
      }
      Thread.sleep((long) (seconds * 1000));
      // the launcher's child JVM holds the store; without a launcher (a heap given), the process
      ProcessHandle started = ProcessHandle.of(standalone.pid()).orElseThrow();
      ProcessHandle server = started.children().findFirst().orElse(started);
      server.destroyForcibly();
      server.onExit().get();
      stop.set(true);
      for (Thread th : writers) {
        th.join(10_000);
      }
    }
    standalone.close();
    long t0 = System.nanoTime();
    ChildJvm again = restart.call();
    Config after = StandaloneChild.config(again);
    out.put("kill9_restart_serving_s", String.format("%.2f", (System.nanoTime() - t0) / 1e9));
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(after).build()) {
      Set<String> present = new HashSet<>();
      client
          .resources(BatchJob.class)
          .inNamespace("default")
          .list()
          .getItems()
          .forEach(j -> present.add(j.getMetadata().getName()));
      out.put("kill9_jobs_after", Integer.toString(present.size()));
      out.put("kill9_acknowledged", Integer.toString(acked.size()));
      out.put("kill9_refused_before", Integer.toString(refused.get()));
      out.put(
          "kill9_lost", Long.toString(acked.stream().filter(n -> !present.contains(n)).count()));
    }
    return again;
  }
}
