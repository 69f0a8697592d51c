package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.vocabulary.ConditionTypes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code octomy-batch standalone} in a child JVM for the benchmarks, with one local node named
 * {@value #NODE}: started, its kubeconfig read, its node awaited.
 */
final class StandaloneChild {

  static final String NODE = "bench";

  private StandaloneChild() {}

  /**
   * Starts standalone mode on {@code stateDir/state}, its output in {@code stateDir/NAME.log}.
   *
   * @param jvm JVM options; none for the JVM's defaults, as a user runs it
   * @param capacity {@code --capacity} values for the local node
   */
  static ChildJvm start(List<String> jvm, Path stateDir, String name, String... capacity)
      throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "standalone", "--state-dir", stateDir.resolve("state").toString(), "--node", NODE));
    for (String c : capacity) {
      args.add("--capacity");
      args.add(c);
    }
    return ChildJvm.startWith(
        stateDir.resolve(name + ".log"), jvm, "io.octomy.batch.Main", args.toArray(String[]::new));
  }

  /** The client configuration from the kubeconfig the child prints. */
  static Config config(ChildJvm child) throws IOException, InterruptedException {
    // a start on 100,000 jobs on a loaded host took over a minute
    Path kubeconfig = Path.of(child.awaitLine("export KUBECONFIG=", Duration.ofSeconds(300)));
    return Config.fromKubeconfig(Files.readString(kubeconfig));
  }

  static void awaitNodeReady(KubernetesClient client) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      BatchNode n = client.resources(BatchNode.class).withName(NODE).get();
      if (n != null
          && n.getStatus() != null
          && Conditions.isTrue(n.getStatus().getConditions(), ConditionTypes.READY)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("node " + NODE + " did not report Ready within 60 s");
  }

  static List<String> jvmOptions(String spaceSeparated) {
    return spaceSeparated.isBlank() ? List.of() : List.of(spaceSeparated.trim().split("\\s+"));
  }

  static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
