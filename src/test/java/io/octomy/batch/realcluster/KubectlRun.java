package io.octomy.batch.realcluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a stock kubectl against a kubeconfig, from the repository root, with its own HOME. The
 * newest kubectl on the machine is used: 1.33 is within the supported skew of the 1.34 server.
 */
public final class KubectlRun {

  /** What one kubectl run printed. */
  public record Result(int exitCode, String out, String err) {
    public String all() {
      return out + err;
    }
  }

  private final Path kubeconfig;
  private final Path home;
  private final Path plugins;

  KubectlRun(Path kubeconfig, Path home) {
    this(kubeconfig, home, null);
  }

  /** With {@code plugins} first on the PATH, where kubectl finds its plugins. */
  KubectlRun(Path kubeconfig, Path home, Path plugins) {
    this.kubeconfig = kubeconfig;
    this.home = home;
    this.plugins = plugins;
  }

  /** kubectl 1.33 from the Cloud SDK folder when present, else the kubectl on the PATH. */
  public static String binary() {
    Path newest = Path.of("/usr/lib/google-cloud-sdk/bin/kubectl.1.33");
    return Files.isExecutable(newest) ? newest.toString() : "kubectl";
  }

  public Result run(String... args) {
    return runWithInput(null, args);
  }

  /**
   * Starts kubectl for a command that keeps running (such as {@code octomy ui}), its standard
   * output and error going to {@code log}; the caller stops it.
   */
  public Process start(Path log, String... args) throws IOException {
    Files.createDirectories(home);
    return command(args)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
        .start();
  }

  /** Runs kubectl with {@code stdin} as its standard input (for {@code -f -}). */
  public Result runWithInput(String stdin, String... args) {
    ProcessBuilder pb = command(args);
    try {
      Files.createDirectories(home);
      Path out = Files.createTempFile(home, "out", ".txt");
      Path err = Files.createTempFile(home, "err", ".txt");
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process p = pb.start();
      if (stdin != null) {
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      p.getOutputStream().close();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("kubectl " + String.join(" ", args) + " hung for 120 s");
      }
      Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
      Files.delete(out);
      Files.delete(err);
      return r;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kubectl: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private ProcessBuilder command(String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("HOME", home.toString());
    if (plugins != null) {
      pb.environment().put("PATH", plugins + ":" + pb.environment().getOrDefault("PATH", ""));
    }
    return pb;
  }
}
