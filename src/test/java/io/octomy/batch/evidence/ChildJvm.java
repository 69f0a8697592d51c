package io.octomy.batch.evidence;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** A main class in a child JVM on this JVM's class path, so that kill -9 is a real kill -9. */
final class ChildJvm implements AutoCloseable {

  private final Process process;
  private final Path log;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static ChildJvm start(Path log, String heap, String mainClass, String... args)
      throws IOException {
    return startWith(
        log, List.of("-Xmx" + heap, "-XX:TieredStopAtLevel=1", "-Xshare:auto"), mainClass, args);
  }

  /** A child JVM with exactly these JVM options (none: the JVM's defaults, as a user runs it). */
  static ChildJvm startWith(Path log, List<String> jvmOptions, String mainClass, String... args)
      throws IOException {
    return startIn(Path.of("").toAbsolutePath(), log, jvmOptions, mainClass, args);
  }

  /** The same, run in {@code directory}: what its jobs make under relative paths stays there. */
  static ChildJvm startIn(
      Path directory, Path log, List<String> jvmOptions, String mainClass, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    // absolute, so that another working directory finds the same classes
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(p -> Path.of(p).toAbsolutePath().toString())
            .collect(Collectors.joining(File.pathSeparator));
    cmd.addAll(List.of("-cp", classPath, mainClass));
    cmd.addAll(List.of(args));
    Process p =
        new ProcessBuilder(cmd)
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    return new ChildJvm(p, log);
  }

  /**
   * The embedded API server alone ({@code ServerProcessMain}) on {@code work/state}, on any free
   * port, its output in {@code work/server.log}; returns once it serves. Its kubeconfig is {@code
   * work/state/kubeconfig}.
   */
  static ChildJvm apiServer(Path work, List<String> jvmOptions)
      throws IOException, InterruptedException {
    ChildJvm child =
        startWith(
            work.resolve("server.log"),
            jvmOptions,
            "io.octomy.batch.apiserver.ServerProcessMain",
            work.resolve("state").toString(),
            "0");
    try {
      child.awaitLine("READY ", Duration.ofSeconds(60));
    } catch (IOException | InterruptedException | RuntimeException e) {
      child.close();
      throw e;
    }
    return child;
  }

  /** Waits until the output holds {@code marker}; returns the rest of that line. */
  String awaitLine(String marker, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String out = Files.exists(log) ? Files.readString(log) : "";
      int i = out.indexOf(marker);
      if (i >= 0 && out.indexOf('\n', i) > 0) {
        return out.substring(i + marker.length(), out.indexOf('\n', i)).trim();
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "child exited with " + process.exitValue() + " before '" + marker + "': " + tail(out));
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException(
        "no '" + marker + "' within " + timeout + ": " + tail(Files.readString(log)));
  }

  boolean hasLine(String marker) throws IOException {
    return Files.exists(log) && Files.readString(log).contains(marker);
  }

  long pid() {
    return process.pid();
  }

  /** SIGTERM, as Ctrl-C: shutdown hooks run; waits for the exit. */
  int stop() throws InterruptedException {
    process.destroy();
    return process.waitFor();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no flush, no goodbye. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  private static String tail(String s) {
    return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill9();
    }
  }
}
