package io.octomy.batch.standalone;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.Resources;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Times;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The world of {@link UiTimelineBenchmark} on a running standalone: nodes without an agent (a spec,
 * and a status written as their agent would, its heartbeat kept fresh), each full with two admitted
 * jobs, and the queued jobs behind them, spread over a few namespaces.
 */
final class UiBenchWorld implements AutoCloseable {

  static final String CPU = "octomy.io/cpu-milli";
  static final long NODE_CPU = 4000;
  static final long JOB_CPU = 2000;
  static final int NAMESPACES = 10;
  private static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(20);

  private final KubernetesClient client;
  private final List<String> nodes = new ArrayList<>();
  private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();

  UiBenchWorld(KubernetesClient client) {
    this.client = client;
  }

  /**
   * The build's plugin copied into {@code dir/bin}, a folder for the PATH of the kubectl that runs
   * it; fails when the build has not placed it at target/kubectl-octomy.
   */
  static Path pluginFolder(Path dir) throws IOException {
    Path plugin = Path.of("target", "kubectl-octomy").toAbsolutePath();
    if (!Files.isExecutable(plugin)) {
      throw new IllegalStateException(
          "the build places the plugin at target/kubectl-octomy: run mvn -B -q package"
              + " -DskipTests first");
    }
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Files.copy(plugin, bin.resolve("kubectl-octomy"));
    bin.resolve("kubectl-octomy").toFile().setExecutable(true);
    return bin;
  }

  /** Standalone in {@code dir} with its own node, "bench", as large as the world's nodes. */
  static StandaloneProcess standalone(Path dir) throws Exception {
    return StandaloneProcess.start(
        dir.resolve("state"),
        dir.resolve("standalone.log"),
        "--node",
        "bench",
        "--capacity",
        CPU + "=" + NODE_CPU);
  }

  /** A user's client of that standalone. */
  static KubernetesClient clientOf(StandaloneProcess sa) throws IOException {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(sa.kubeconfig)))
        .build();
  }

  static String namespace(int i) {
    return "team-" + (i % NAMESPACES);
  }

  void namespaces() {
    for (int i = 0; i < NAMESPACES; i++) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace(i)).endMetadata().build())
          .create();
    }
  }

  /** Creates {@code count} agentless nodes of {@value #NODE_CPU} milli-cores, reported Ready. */
  void nodes(int count) {
    for (int i = 0; i < count; i++) {
      nodes.add(nodeName(i));
    }
    parallel(
        count,
        i -> {
          BatchNode n = new BatchNode();
          n.setMetadata(new ObjectMeta());
          n.getMetadata().setName(nodes.get(i));
          BatchNodeSpec spec = new BatchNodeSpec();
          spec.setMode(NodeMode.Drone);
          spec.setExecutor(Executor.Process);
          n.setSpec(spec);
          BatchNode made = client.resources(BatchNode.class).resource(n).create();
          made.setStatus(status(Instant.now()));
          client.resources(BatchNode.class).resource(made).updateStatus();
        });
    // an agent reports every few seconds; without it the nodes would be marked silent after 60 s
    heartbeats.scheduleWithFixedDelay(
        this::beat, HEARTBEAT_EVERY.toSeconds(), HEARTBEAT_EVERY.toSeconds(), TimeUnit.SECONDS);
  }

  static String nodeName(int i) {
    return String.format("bn-%04d", i);
  }

  /**
   * Adds {@code milli} to a node's reported capacity, as its agent would after a resize; read again
   * and retried when a heartbeat wrote the node in between (409).
   */
  void grow(String node, long milli) {
    for (int attempt = 1; ; attempt++) {
      try {
        client
            .resources(BatchNode.class)
            .withName(node)
            .editStatus(
                n -> {
                  Map<String, Long> capacity = new java.util.HashMap<>(n.getStatus().getCapacity());
                  capacity.merge(CPU, milli, Long::sum);
                  n.getStatus().setCapacity(capacity);
                  return n;
                });
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  /** One merge patch per node, eight at a time: a round must take well under the 60 s timeout. */
  private void beat() {
    String patch = "{\"status\":{\"heartbeatTime\":\"" + Times.format(Instant.now()) + "\"}}";
    parallel(
        nodes.size(),
        i -> {
          if (heartbeats.isShutdown()) {
            return;
          }
          try {
            client
                .resources(BatchNode.class)
                .withName(nodes.get(i))
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
          } catch (RuntimeException e) {
            System.err.println("heartbeat of " + nodes.get(i) + " missed: " + e.getMessage());
          }
        });
  }

  private static BatchNodeStatus status(Instant beat) {
    BatchNodeStatus s = new BatchNodeStatus();
    s.setCapacity(Map.of(CPU, NODE_CPU, "octomy.io/memory-bytes", 16L << 30));
    s.setHeartbeatTime(Times.format(beat));
    s.setConditions(
        Conditions.set(
            null, ConditionTypes.READY, true, "AgentReporting", "agent is reporting", null, beat));
    return s;
  }

  /** Creates {@code count} jobs named {@code prefix-N} of {@value #JOB_CPU} milli-cores. */
  void jobs(String prefix, int count) {
    parallel(count, i -> create(job(prefix + "-" + i, namespace(i))));
  }

  BatchJob create(BatchJob j) {
    return client
        .resources(BatchJob.class)
        .inNamespace(j.getMetadata().getNamespace())
        .resource(j)
        .create();
  }

  static BatchJob job(String name, String namespace) {
    BatchJob j = new BatchJob();
    j.setMetadata(new ObjectMeta());
    j.getMetadata().setName(name);
    j.getMetadata().setNamespace(namespace);
    BatchJobSpec spec = new BatchJobSpec();
    PodTemplateSpec t = new PodTemplateSpec();
    t.setSpec(
        new PodSpecBuilder()
            .withContainers(
                new ContainerBuilder()
                    .withName("main")
                    .withImage("unused")
                    .withCommand("sh", "-c", "sleep 3600")
                    .build())
            .build());
    spec.setTemplate(t);
    spec.setResources(new Resources(Map.of(CPU, JOB_CPU), Map.of(CPU, JOB_CPU)));
    j.setSpec(spec);
    return j;
  }

  private static void parallel(int count, IntConsumer each) {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < count; i += 8) {
                    each.accept(i);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      pool.shutdown();
    }
  }

  @Override
  public void close() {
    heartbeats.shutdownNow();
  }
}
