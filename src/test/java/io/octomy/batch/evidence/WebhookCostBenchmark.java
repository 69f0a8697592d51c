package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.Resources;
import io.octomy.batch.realcluster.ProductDeployment;
import io.octomy.batch.realcluster.RealCluster;
import io.octomy.batch.vocabulary.Finalizers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the chart's reservation webhook adds to a BatchJob create on the real kube-apiserver. One
 * control plane of its own with the CRDs and the chart (visibility API and webhook registered), one
 * controller process holding the Lease and serving the webhook ({@link WebhookRoute}), no node:
 * every job waits, so the controller's work per job (one status write) is the same whether the
 * webhook put the finalizer on or not, and the only difference between the two kinds of block is
 * the webhook.
 *
 * <p>Blocks of creates alternate between the webhook configured and its configuration deleted, in
 * ABBA order, so the host's noise falls on both alike; a warm-up block of each is not counted. Each
 * create's answer says which path it took (the finalizer is on it or not); a block where one does
 * not is reported and the run exits 1. The jobs are deleted after each block. Per block and over
 * all: p50, p90, p99 and max of each kind, the ratio and the difference; for the webhook's blocks,
 * the API server's own timing of the webhook call (its metrics) and the connections it opened to
 * the webhook (the egress proxy's log). Then the controller's answer alone, over one kept-alive
 * connection straight to its port ({@link WebhookRoute#directCalls}).
 */
public final class WebhookCostBenchmark {

  private WebhookCostBenchmark() {}

  public static void main(String[] argv) throws Exception {
    Args a =
        new Args(
            argv,
            Map.of(
                "blocks", "5",
                "creates", "200",
                "clients", "1,4",
                "direct-calls", "2000",
                "dir", "target/webhook-cost"));
    System.out.println("webhook cost benchmark " + a);
    boolean allOnTheirPath = true;
    try (RealCluster cluster = RealCluster.startAt(Path.of(a.string("dir")).toAbsolutePath())) {
      ProductDeployment product = ProductDeployment.installOn(cluster, true);
      KubernetesClient client = cluster.admin();
      String ns = cluster.namespace("webhook-cost");
      try (WebhookRoute route = WebhookRoute.start(product, ns)) {
        for (String c : a.string("clients").split(",")) {
          allOnTheirPath &=
              run(
                  client,
                  route,
                  ns,
                  Integer.parseInt(c),
                  a.integer("blocks"),
                  a.integer("creates"));
        }
        route.configure(true);
        Percentiles direct = new Percentiles(route.directCalls(a.integer("direct-calls")));
        System.out.printf(
            "%nthe controller's answer alone (POST of an AdmissionReview straight to its port,"
                + " one kept-alive connection): %s%n",
            line(direct));
      }
    }
    System.out.println(
        allOnTheirPath
            ? "every create took the path of its block"
            : "SOME CREATES DID NOT TAKE THE PATH OF THEIR BLOCK: see above");
    System.exit(allOnTheirPath ? 0 : 1);
  }

  /** Warm-up, then {@code blocks} ABBA pairs with {@code clients} clients; true if all on path. */
  private static boolean run(
      KubernetesClient client, WebhookRoute route, String ns, int clients, int blocks, int creates)
      throws Exception {
    System.out.printf("%n=== %d client(s), %d creates per block ===%n", clients, creates);
    block(client, route, ns, clients, creates, true, "warm-up");
    block(client, route, ns, clients, creates, false, "warm-up");
    List<Double> with = new ArrayList<>();
    List<Double> without = new ArrayList<>();
    boolean onPath = true;
    for (int b = 1; b <= blocks; b++) {
      boolean first = b % 2 == 1;
      Block x = block(client, route, ns, clients, creates, first, "block " + b);
      Block y = block(client, route, ns, clients, creates, !first, "block " + b);
      Block w = first ? x : y;
      Block n = first ? y : x;
      compare("block " + b, w.latencies, n.latencies);
      w.latencies.forEach(with::add);
      n.latencies.forEach(without::add);
      onPath &= w.onPath && n.onPath;
    }
    System.out.printf("overall, %d client(s):%n", clients);
    System.out.println("  with the webhook:    " + line(new Percentiles(doubles(with))));
    System.out.println("  without the webhook: " + line(new Percentiles(doubles(without))));
    compare("overall", with, without);
    return onPath;
  }

  private record Block(List<Double> latencies, boolean onPath) {}

  private static Block block(
      KubernetesClient client,
      WebhookRoute route,
      String ns,
      int clients,
      int creates,
      boolean webhook,
      String label)
      throws Exception {
    route.configure(webhook);
    WebhookRoute.Counters before = route.counters();
    double[] ms = new double[creates];
    boolean[] finalized = new boolean[creates];
    AtomicInteger next = new AtomicInteger();
    String prefix = (webhook ? "w" : "n") + System.nanoTime() % 1_000_000_000L + "-";
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < creates; i = next.getAndIncrement()) {
                    BatchJob j = job(prefix + i);
                    long t = System.nanoTime();
                    BatchJob stored =
                        client.resources(BatchJob.class).inNamespace(ns).resource(j).create();
                    ms[i] = (System.nanoTime() - t) / 1e6;
                    finalized[i] = hasFinalizer(stored);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    WebhookRoute.Counters after = route.counters();
    int withFinalizer = 0;
    for (boolean f : finalized) {
      withFinalizer += f ? 1 : 0;
    }
    boolean onPath = withFinalizer == (webhook ? creates : 0);
    System.out.printf(
        "%s %-8s %s; %d of %d stored with the finalizer%s%s%n",
        label,
        webhook ? "with" : "without",
        line(new Percentiles(ms)),
        withFinalizer,
        creates,
        onPath ? "" : " (NOT THIS BLOCK'S PATH)",
        webhook ? "; " + after.since(before) : "");
    deleteJobs(client, ns);
    List<Double> list = new ArrayList<>();
    for (double d : ms) {
      list.add(d);
    }
    return new Block(list, onPath);
  }

  static boolean hasFinalizer(BatchJob stored) {
    List<String> f = stored.getMetadata().getFinalizers();
    return f != null && f.contains(Finalizers.RESERVATION);
  }

  /** Deletes the block's jobs and waits until the controller has let the last one go. */
  private static void deleteJobs(KubernetesClient client, String ns) throws InterruptedException {
    client.resources(BatchJob.class).inNamespace(ns).delete();
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!client.resources(BatchJob.class).inNamespace(ns).list().getItems().isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the block's BatchJobs in " + ns + " are not gone 120 s after their delete");
      }
      Thread.sleep(200);
    }
  }

  private static void compare(String label, List<Double> with, List<Double> without) {
    Percentiles w = new Percentiles(doubles(with));
    Percentiles n = new Percentiles(doubles(without));
    System.out.printf(
        "%s with/without: p50 %.2f (%+.2f ms), p90 %.2f (%+.2f ms), p99 %.2f (%+.2f ms),"
            + " max %.2f (%+.2f ms)%n",
        label,
        w.p(50) / n.p(50),
        w.p(50) - n.p(50),
        w.p(90) / n.p(90),
        w.p(90) - n.p(90),
        w.p(99) / n.p(99),
        w.p(99) - n.p(99),
        w.p(100) / n.p(100),
        w.p(100) - n.p(100));
  }

  static String line(Percentiles p) {
    return String.format(
        "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms", p.p(50), p.p(90), p.p(99), p.p(100));
  }

  private static double[] doubles(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** A small job no node holds (there is none): it waits, one status write by the controller. */
  static BatchJob job(String name) {
    BatchJob j = new BatchJob();
    j.setMetadata(new ObjectMeta());
    j.getMetadata().setName(name);
    BatchJobSpec spec = new BatchJobSpec();
    PodTemplateSpec t = new PodTemplateSpec();
    t.setSpec(
        new PodSpecBuilder()
            .withRestartPolicy("Never")
            .withContainers(
                new ContainerBuilder()
                    .withName("main")
                    .withImage("busybox:1.36")
                    .withCommand("sh", "-c", "true")
                    .build())
            .build());
    spec.setTemplate(t);
    Map<String, Long> cpu = Map.of("octomy.io/cpu-milli", 100L);
    spec.setResources(new Resources(cpu, cpu));
    j.setSpec(spec);
    return j;
  }
}
