package io.octomy.batch.standalone;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The whole product as a user starts it: {@code octomy-batch standalone} in a child JVM. */
final class StandaloneProcess implements AutoCloseable {

  private final Process process;
  private final Path log;
  final Path kubeconfig;

  private StandaloneProcess(Process process, Path log, Path kubeconfig) {
    this.process = process;
    this.log = log;
    this.kubeconfig = kubeconfig;
  }

  static StandaloneProcess start(Path stateDir, Path log, String... extraArgs) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                "io.octomy.batch.Main",
                "standalone",
                "--state-dir",
                stateDir.toString()));
    cmd.addAll(List.of(extraArgs));
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Process p = pb.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      String out = Files.exists(log) ? Files.readString(log) : "";
      int i = out.indexOf("export KUBECONFIG=");
      if (i >= 0 && out.indexOf('\n', i) > 0) {
        Path kc =
            Path.of(out.substring(i + "export KUBECONFIG=".length(), out.indexOf('\n', i)).trim());
        return new StandaloneProcess(p, log, kc);
      }
      if (!p.isAlive()) {
        throw new IllegalStateException("standalone exited with " + p.exitValue() + ": " + out);
      }
      Thread.sleep(100);
    }
    p.destroyForcibly();
    throw new IllegalStateException(
        "standalone did not print its KUBECONFIG line: " + Files.readString(log));
  }

  long pid() {
    return process.pid();
  }

  /** kill -9: no shutdown hook runs, nothing is flushed on the way out. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** Ctrl-C / SIGTERM: the shutdown hook closes everything. */
  int stop() throws InterruptedException {
    process.destroy();
    return process.waitFor();
  }

  String output() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
