package io.octomy.batch.realcluster;

import io.octomy.batch.fixtures.ProductCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The product's own command line ({@code controller}, {@code agent}) in a child JVM, as a Pod or a
 * workstation would run it: its own process, its own credentials, its output in a log file.
 */
final class ProductProcess implements AutoCloseable {

  private final Process process;
  private final Path log;

  private ProductProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static ProductProcess start(Path log, Map<String, String> env, String... args)
      throws IOException {
    ProcessBuilder pb = ProductCommand.of(log, args);
    pb.environment().putAll(env);
    return new ProductProcess(pb.start(), log);
  }

  /** Waits until the output holds {@code marker}. */
  void awaitLine(String marker, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (output().contains(marker)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "exited with " + process.exitValue() + " before '" + marker + "':\n" + tail());
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("no '" + marker + "' within " + timeout + ":\n" + tail());
  }

  String output() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  String tail() throws IOException {
    String s = output();
    return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The exit code; only once the process has ended. */
  int exitCode() {
    return process.exitValue();
  }

  /** SIGKILL: no shutdown hook runs, nothing is released. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM and a wait for the shutdown hooks. */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      kill9();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      stop();
    }
  }
}
