package io.octomy.batch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.Main;
import io.octomy.batch.fixtures.ProductCommand;
import java.io.IOException;
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
            StandaloneLauncher.COLLECTOR);
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
    assertThat(server).contains("-XX:+UseSerialGC").doesNotContain(StandaloneLauncher.COLLECTOR);
    assertServes(kubeconfig);
  }

  private Process start(List<String> jvm, String log) throws IOException {
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
