package io.octomy.batch.apiserver;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a real kubectl binary against a kubeconfig, with its own HOME so no discovery cache is
 * shared.
 */
public final class Kubectl {

  /** What one kubectl run printed. */
  public record Result(int exitCode, String out, String err) {
    public String all() {
      return out + err;
    }
  }

  private final String binary;
  private final Path kubeconfig;
  private final Path home;
  private final Path plugins;

  public Kubectl(String binary, Path kubeconfig, Path home) {
    this(binary, kubeconfig, home, null);
  }

  private Kubectl(String binary, Path kubeconfig, Path home, Path plugins) {
    this.binary = binary;
    this.kubeconfig = kubeconfig;
    this.home = home;
    this.plugins = plugins;
  }

  /** The same kubectl with {@code dir} first on its PATH, where it finds plugins. */
  public Kubectl withPluginsFrom(Path dir) {
    return new Kubectl(binary, kubeconfig, home, dir);
  }

  public String binary() {
    return binary;
  }

  /**
   * The default kubectl plus, when present, the oldest and newest of the versioned ones beside it.
   */
  public static List<String> versions() {
    List<String> found = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/kubectl"))) {
      found.add("/usr/bin/kubectl");
    }
    for (String v : List.of("1.27", "1.33")) {
      Path p = Path.of("/usr/lib/google-cloud-sdk/bin/kubectl." + v);
      if (Files.isExecutable(p)) {
        found.add(p.toString());
      }
    }
    return found;
  }

  public Result run(String... args) {
    return run(20, args);
  }

  public Result run(int timeoutSeconds, String... args) {
    // Output goes to files: a pipe holds 64 KiB, and kubectl blocks writing more (an error that
    // quotes whole CRDs) until it is read, which would make any long answer a timeout.
    Path out = null;
    Path err = null;
    try {
      Files.createDirectories(home);
      out = Files.createTempFile(home, "kubectl", ".out");
      err = Files.createTempFile(home, "kubectl", ".err");
      ProcessBuilder pb = builder(args);
      pb.redirectOutput(out.toFile());
      pb.redirectError(err.toFile());
      Process p = pb.start();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
      }
      return new Result(
          p.exitValue(),
          new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
          new String(Files.readAllBytes(err), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      if (file != null) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      // a scratch file in the test's own folder
    }
  }

  /** Starts kubectl without waiting (for {@code get -w}), its output going to a file. */
  public Process startTo(Path output, String... args) throws IOException {
    ProcessBuilder pb = builder(args);
    pb.redirectOutput(output.toFile());
    pb.redirectErrorStream(true);
    return pb.start();
  }

  private ProcessBuilder builder(String... args) {
    List<String> command = new ArrayList<>();
    command.add(binary);
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("HOME", home.toString());
    pb.environment().remove("KUBERNETES_MASTER");
    if (plugins != null) {
      pb.environment().put("PATH", plugins + File.pathSeparator + System.getenv("PATH"));
    }
    return pb;
  }
}
