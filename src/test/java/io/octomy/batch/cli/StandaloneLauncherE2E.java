package io.octomy.batch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.Main;
import io.octomy.batch.fixtures.ProductCommand;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code octomy-batch standalone} as real processes, started as a user starts it: with the JVM's
 * own heap sizing it runs the server in a second JVM of bounded heap, which stops with it.
 */
class StandaloneLauncherE2E {

  @TempDir Path dir;

  private final List<Process> started = new ArrayList<>();

  /** Server JVMs seen; one whose launcher was killed is no longer among its descendants. */
  private final List<ProcessHandle> servers = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    ProductCommand.killAll(started);
    servers.forEach(ProcessHandle::destroyForcibly);
  }

  @Test
  void withoutAHeapOfItsOwnTheServerRunsInABoundedJvmThatStopsWithItsLauncher() throws Exception {
    Process launcher = start(List.of(), "first.log");
    Path kubeconfig = awaitKubeconfig(launcher, "first.log");
    ProcessHandle server = onlyJavaChild(launcher);
    assertThat(commandLine(server))
        .contains(
            "-Xmx" + StandaloneLauncher.BASE_HEAP_MIB + "m",
            "-XX:+ExitOnOutOfMemoryError",
            StandaloneLauncher.COLLECTOR,
            StandaloneLauncher.YOUNG_SHARE);
    assertServes(kubeconfig);

    launcher.destroy(); // SIGTERM, as systemd or kill stops it

    assertThat(launcher.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(server.isAlive()).as("the server stopped before its launcher ended").isFalse();
  }

  @Test
  void aServerWhoseLauncherIsKilledStopsAndItsStateStartsAgain() throws Exception {
    Process launcher = start(List.of(), "first.log");
    awaitKubeconfig(launcher, "first.log");
    ProcessHandle server = onlyJavaChild(launcher);

    launcher.destroyForcibly();

    server.onExit().get(30, TimeUnit.SECONDS);
    // The state directory was released: a start with a heap of its own serves it, in one JVM.
    Process again = start(List.of("-Xmx512m"), "again.log");
    Path kubeconfig = awaitKubeconfig(again, "again.log");
    assertThat(again.descendants().filter(StandaloneLauncherE2E::isJava)).isEmpty();
    assertServes(kubeconfig);
  }

  @Test
  void aCollectorTheUserChoseIsTheServersOnly() throws Exception {
    Process launcher = start(List.of("-XX:+UseSerialGC"), "chosen.log");
    Path kubeconfig = awaitKubeconfig(launcher, "chosen.log");
    List<String> server = commandLine(onlyJavaChild(launcher));
    assertThat(server)
        .contains("-XX:+UseSerialGC")
        .doesNotContain(StandaloneLauncher.COLLECTOR, StandaloneLauncher.YOUNG_SHARE);
    assertServes(kubeconfig);
  }

  @Test
  void aServerOutOfFileDescriptorsDoesNotTakeItsLiveLauncherForGone() throws Exception {
    // Both JVMs get few descriptors, so a few hundred connections exhaust the server's.
    Process launcher = start(List.of(), "scarce.log", "ulimit -n 512;");
    Path kubeconfig = awaitKubeconfig(launcher, "scarce.log");
    ProcessHandle server = onlyJavaChild(launcher);
    URI url = URI.create(Config.fromKubeconfig(Files.readString(kubeconfig)).getMasterUrl());
    List<Socket> flood = new ArrayList<>();
    try {
      for (int i = 0; i < 700; i++) {
        Socket s = new Socket();
        flood.add(s);
        try {
          s.connect(new InetSocketAddress("127.0.0.1", url.getPort()), 200);
        } catch (IOException refused) {
          // the backlog is full: the server has no descriptor left to accept with
        }
      }
      // The JDK's check of a process that is not its child runs at least every 5 s.
      Thread.sleep(8_000);
      assertThat(server.isAlive())
          .as("the server with no descriptor left; its output: %s", tail("scarce.log"))
          .isTrue();
    } finally {
      for (Socket s : flood) {
        s.close();
      }
    }
    assertThat(launcher.isAlive()).isTrue();
    assertServes(kubeconfig);
  }

  @Test
  void aConnectionFloodIsCappedBelowTheDescriptorLimit() throws Exception {
    Process launcher = start(List.of(), "capped.log", "ulimit -n 512;");
    Path kubeconfig = awaitKubeconfig(launcher, "capped.log");
    ProcessHandle server = onlyJavaChild(launcher);
    URI url = URI.create(Config.fromKubeconfig(Files.readString(kubeconfig)).getMasterUrl());
    List<Socket> flood = new ArrayList<>();
    long inUse;
    try {
      for (int i = 0; i < 700; i++) {
        Socket s = new Socket();
        flood.add(s);
        try {
          s.connect(new InetSocketAddress("127.0.0.1", url.getPort()), 200);
        } catch (IOException refused) {
          // the backlog is full
        }
      }
      Thread.sleep(2_000); // the last connections accepted and closed
      inUse = descriptors(server);
      assertThat(server.isAlive()).as("the server; its output: %s", tail("capped.log")).isTrue();
    } finally {
      for (Socket s : flood) {
        s.close();
      }
    }
    // Before the cap the flood took every descriptor (511 of 512) until the handshake timeout.
    assertThat(inUse)
        .as("descriptors the server holds under a flood of 700 connections, of 512")
        .isLessThan(448);
    String log = Files.readString(dir.resolve("capped.log"));
    assertThat(log.split("refusing new connections: ", -1))
        .as("one log line for hundreds of refusals: %s", tail("capped.log"))
        .hasSize(2);
    assertThat(log).doesNotContain("Too many open files");
    assertThat(launcher.isAlive()).isTrue();
    assertServes(kubeconfig);
  }

  private static long descriptors(ProcessHandle p) throws IOException {
    try (var fds = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
      return fds.count();
    }
  }

  private String tail(String log) throws IOException {
    String out = Files.readString(dir.resolve(log));
    return out.substring(Math.max(0, out.length() - 3000));
  }

  private Process start(List<String> jvm, String log) throws IOException {
    return start(jvm, log, "");
  }

  /** {@code shellPrefix}: shell words run before the JVM replaces the shell, e.g. a ulimit. */
  private Process start(List<String> jvm, String log, String shellPrefix) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvm);
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            "standalone",
            "--state-dir",
            dir.resolve("state").toString(),
            "--node",
            "launcher-e2e"));
    if (!shellPrefix.isEmpty()) {
      StringBuilder line = new StringBuilder(shellPrefix).append(" exec");
      for (String word : command) {
        line.append(" '").append(word.replace("'", "'\\''")).append('\'');
      }
      command = List.of("bash", "-c", line.toString());
    }
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(log).toFile())
            .start();
    started.add(p);
    return p;
  }

  private Path awaitKubeconfig(Process p, String log) throws Exception {
    String marker = "export KUBECONFIG=";
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      String out = Files.readString(dir.resolve(log));
      int at = out.indexOf(marker);
      if (at >= 0 && out.indexOf('\n', at) > 0) {
        return Path.of(out.substring(at + marker.length(), out.indexOf('\n', at)).trim());
      }
      assertThat(p.isAlive()).as("standalone still running; its output: %s", out).isTrue();
      Thread.sleep(50);
    }
    throw new AssertionError(
        "no kubeconfig line within 120 s: " + Files.readString(dir.resolve(log)));
  }

  private ProcessHandle onlyJavaChild(Process launcher) {
    List<ProcessHandle> children =
        launcher.children().filter(StandaloneLauncherE2E::isJava).toList();
    servers.addAll(children);
    assertThat(children).as("the server JVM").hasSize(1);
    return children.get(0);
  }

  /** The process's arguments as Linux keeps them (the JDK's {@code Info} drops long ones). */
  private static List<String> commandLine(ProcessHandle p) throws IOException {
    String raw = Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
    return List.of(raw.split("\0"));
  }

  private static boolean isJava(ProcessHandle p) {
    return p.info().command().map(c -> c.endsWith("/java")).orElse(false);
  }

  private static void assertServes(Path kubeconfig) throws IOException {
    Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      assertThat(client.namespaces().list().getItems())
          .extracting(Namespace::getMetadata)
          .anySatisfy(m -> assertThat(m.getName()).isEqualTo("default"));
    }
  }
}
