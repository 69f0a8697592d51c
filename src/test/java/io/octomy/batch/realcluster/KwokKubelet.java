package io.octomy.batch.realcluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

/**
 * KWOK ({@code sigs.k8s.io/kwok}, built by test-cluster/build) playing the kubelet of Node objects
 * made for it: a Pod bound to such a node runs and ends as {@code kwok/stages.yaml} says (its label
 * {@code octomy-test-exit} gives the exit code; without it the Pod keeps running), and a Pod being
 * deleted is removed. The node's and Pods' addresses are loopback ones, so nothing the API server
 * might dial for them (logs, exec) leaves the machine.
 *
 * <p>KWOK v0.8.0 can die at start with "fatal error: concurrent map writes" (its CEL library
 * registers types from two controllers at once), so a KWOK that exits before {@link #close} is
 * started again, a few times at most, its output appended to the same log.
 */
final class KwokKubelet implements AutoCloseable {

  /** Set on the Node objects KWOK manages; it leaves every other node alone. */
  static final String MANAGED = "kwok.x-k8s.io/node";

  /** A Pod's label that makes it end, with this exit code, a second after it started. */
  static final String EXIT_LABEL = "octomy-test-exit";

  /** How many times a KWOK that died is started again. */
  private static final int RESTARTS = 5;

  private final ProcessBuilder command;
  private volatile Process process;
  private volatile boolean closing;

  private KwokKubelet(ProcessBuilder command) throws IOException {
    this.command = command;
    this.process = command.start();
    Thread watcher = new Thread(this::restartWhenDead, "kwok-watcher");
    watcher.setDaemon(true);
    watcher.start();
  }

  private void restartWhenDead() {
    try {
      for (int restarts = 0; restarts < RESTARTS; restarts++) {
        process.waitFor();
        synchronized (this) {
          if (closing) {
            return;
          }
          process = command.start();
        }
      }
    } catch (InterruptedException | IOException e) {
      // the test then finds its Pods not moving and says so
    }
  }

  /** Starts KWOK against the cluster, its log and stage file in {@code dir}. */
  static KwokKubelet start(RealCluster cluster, Path dir) throws IOException {
    Path binary = RealCluster.home().resolve("bin").resolve("kwok");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(binary + " is missing: test-cluster/build makes it");
    }
    Files.createDirectories(dir);
    Path stages = dir.resolve("stages.yaml");
    try (InputStream in = KwokKubelet.class.getResourceAsStream("/kwok/stages.yaml")) {
      Files.copy(in, stages, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.deleteIfExists(dir.resolve("kwok.log"));
    ProcessBuilder command =
        new ProcessBuilder(
                binary.toString(),
                "--kubeconfig=" + cluster.kubeconfig(),
                "--config=" + stages,
                "--manage-all-nodes=false",
                "--manage-nodes-with-annotation-selector=" + MANAGED + "=fake",
                "--node-ip=127.0.0.1",
                "--cidr=127.64.0.0/16",
                "--server-address=")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("kwok.log").toFile()));
    return new KwokKubelet(command);
  }

  /** A Node object KWOK keeps Ready, named as the BatchNode whose Pods it runs. */
  static Node node(KubernetesClient admin, String name) {
    Node existing = admin.nodes().withName(name).get();
    if (existing != null) {
      return existing;
    }
    return admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations(MANAGED, "fake")
                .addToLabels("type", "kwok")
                .endMetadata()
                .build())
        .create();
  }

  @Override
  public void close() throws InterruptedException {
    Process process;
    synchronized (this) {
      closing = true;
      process = this.process;
    }
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
