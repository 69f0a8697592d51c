package io.octomy.batch.realcluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real control plane (etcd, kube-apiserver, kube-controller-manager built from the pinned
 * Kubernetes modules), started once per test JVM through the same entry point people use: {@code
 * test-cluster/start DIR}. It is stopped with SIGTERM when the JVM exits.
 *
 * <p>There is no skipping: if the control plane cannot be built or started, {@link #get()} throws
 * and every test of the tier fails with the start-up output.
 */
public final class RealCluster implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofMinutes(15);
  private static RealCluster instance;
  private static IllegalStateException startFailure;

  private final Path dir;
  private final Path kubeconfig;
  private final Process process;
  private final KubernetesClient admin;
  private final AtomicInteger namespaces = new AtomicInteger();
  private KubectlRun.Result crdApply;

  private RealCluster(Path dir, Path kubeconfig, Process process) {
    this.dir = dir;
    this.kubeconfig = kubeconfig;
    this.process = process;
    this.admin = new KubernetesClientBuilder().withConfig(adminConfig()).build();
  }

  /** The shared control plane; started on first use. */
  public static synchronized RealCluster get() {
    if (startFailure != null) {
      throw startFailure;
    }
    if (instance == null) {
      try {
        instance = start(Path.of("target", "test-cluster-run").toAbsolutePath(), true);
      } catch (IllegalStateException e) {
        startFailure = e;
        throw e;
      }
    }
    return instance;
  }

  /** The test-cluster/ folder of this checkout (failsafe passes it; else relative to the cwd). */
  public static Path home() {
    return Path.of(System.getProperty("octomy.testCluster", "test-cluster")).toAbsolutePath();
  }

  /** The tools binary built next to the control plane (kstatus, lua-health). */
  public static Path binary() {
    return home().resolve("bin").resolve("test-cluster");
  }

  /**
   * A control plane of its own in {@code dir} (emptied first), for a benchmark; {@link #close()}
   * stops it. Tests share {@link #get()} instead.
   */
  public static RealCluster startAt(Path dir) {
    return start(dir, true);
  }

  /** The control plane on a directory a previous run left, its etcd data and keys kept. */
  public static RealCluster restartAt(Path dir) {
    return start(dir, false);
  }

  @Override
  public void close() {
    stop();
  }

  private static RealCluster start(Path dir, boolean fresh) {
    try {
      if (fresh) {
        deleteTree(dir);
      }
      Files.createDirectories(dir);
      Path out = dir.resolve("start.out");
      Process p =
          new ProcessBuilder(home().resolve("start").toString(), dir.toString())
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      String expected = "export KUBECONFIG=" + dir.resolve("kubeconfig");
      while (System.nanoTime() < deadline) {
        String printed = Files.readString(out);
        if (printed.lines().anyMatch(expected::equals)) {
          RealCluster c = new RealCluster(dir, dir.resolve("kubeconfig"), p);
          Runtime.getRuntime().addShutdownHook(new Thread(c::stop, "test-cluster-stop"));
          return c;
        }
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "test-cluster/start "
                  + dir
                  + " exited with "
                  + p.exitValue()
                  + " before printing '"
                  + expected
                  + "':\n"
                  + printed);
        }
        Thread.sleep(100);
      }
      p.destroyForcibly();
      throw new IllegalStateException(
          "test-cluster/start did not answer within "
              + START_TIMEOUT
              + ":\n"
              + Files.readString(out));
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + home().resolve("start") + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * SIGTERM, as the contract says, and a wait for the clean stop; the exit code, or -1 when it had
   * to be killed.
   */
  public int stopAndWait() {
    stop();
    return process.isAlive() ? -1 : process.exitValue();
  }

  /** SIGTERM, as the contract says, and a wait for the clean stop. */
  private void stop() {
    admin.close();
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public Path dir() {
    return dir;
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The cluster-admin client (client certificate in group system:masters). */
  public KubernetesClient admin() {
    return admin;
  }

  public Config adminConfig() {
    try {
      return Config.fromKubeconfig(Files.readString(kubeconfig));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The API server's URL. */
  public String server() {
    return adminConfig().getMasterUrl();
  }

  /** A fresh namespace whose name starts with {@code prefix}. */
  public String namespace(String prefix) {
    String ns = prefix + "-" + namespaces.incrementAndGet();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    return ns;
  }

  /**
   * The product's CRDs from {@code crds/}, applied once with kubectl (server-side apply, as the
   * deployment docs say) and waited for until Established; the result of that apply.
   */
  public synchronized KubectlRun.Result crds() {
    if (crdApply == null) {
      crdApply = kubectl().run("apply", "--server-side", "-f", "crds/");
      if (crdApply.exitCode() == 0) {
        KubectlRun.Result established =
            kubectl()
                .run(
                    "wait",
                    "--for=condition=Established",
                    "--timeout=60s",
                    "crd/batchjobs.batch.octomy.io",
                    "crd/batchnodes.batch.octomy.io",
                    "crd/batchjobprofiles.batch.octomy.io",
                    "crd/batchqueues.batch.octomy.io");
        if (established.exitCode() != 0) {
          crdApply = established;
        } else {
          awaitDiscovery();
        }
      }
    }
    return crdApply;
  }

  /** Established is set a moment before discovery lists the resources; kubectl needs the latter. */
  private void awaitDiscovery() {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      KubectlRun.Result r =
          kubectl().run("api-resources", "--api-group=batch.octomy.io", "-o", "name");
      if (r.out().contains("batchjobs.batch.octomy.io")
          && r.out().contains("batchnodes.batch.octomy.io")
          && r.out().contains("batchjobprofiles.batch.octomy.io")
          && r.out().contains("batchqueues.batch.octomy.io")) {
        return;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The CRDs, failing the calling test when the server refused them. */
  public void requireCrds() {
    KubectlRun.Result r = crds();
    if (r.exitCode() != 0) {
      throw new IllegalStateException("the real server refused crds/: " + r.all());
    }
  }

  /** kubectl as cluster-admin. */
  public KubectlRun kubectl() {
    return new KubectlRun(kubeconfig, dir.resolve("kubectl-home"));
  }

  /** The audit log: one JSON line per request of every identity under test. */
  public Path auditLog() {
    return dir.resolve("audit.log");
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
