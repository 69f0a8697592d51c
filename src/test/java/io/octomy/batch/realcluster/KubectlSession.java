package io.octomy.batch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kubectl conformance session ({@code src/test/resources/conformance/kubectl-session.sh}): a
 * bash script whose {@code # step: NAME} lines cut it into steps. Each step runs in its own bash
 * with a chosen kubectl first on the PATH, against one kubeconfig, and its exit code, standard
 * output and standard error are kept apart.
 */
final class KubectlSession {

  static final Path SCRIPT = Path.of("src/test/resources/conformance/kubectl-session.sh");
  private static final Pattern STEP = Pattern.compile("^# step: (\\S+)\\s*$");
  private static final long STEP_TIMEOUT_SECONDS = 120;

  /** One step: its name and the bash text up to the next step. */
  record Step(String name, String script) {}

  /** What one step printed. */
  record StepOutput(int exitCode, String out, String err) {}

  /**
   * Where a run happens: the server's kubeconfig, the kubectl binary, a scratch folder of its own
   * (HOME, WORK and the PATH entry live there), the namespace and the suffix for cluster-scoped
   * names.
   */
  record Target(Path kubeconfig, Path kubectl, Path scratch, String namespace, String run) {
    Path work() {
      return scratch.resolve("work");
    }
  }

  private KubectlSession() {}

  /** The steps of the session, in order; step names are unique. */
  static List<Step> steps() {
    try {
      return parse(Files.readString(SCRIPT));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Step> parse(String script) {
    List<Step> steps = new ArrayList<>();
    String name = null;
    StringBuilder body = new StringBuilder();
    for (String line : script.split("\n", -1)) {
      Matcher m = STEP.matcher(line);
      if (m.matches()) {
        if (name != null) {
          steps.add(new Step(name, body.toString()));
        }
        name = m.group(1);
        body.setLength(0);
      } else if (name != null) {
        body.append(line).append('\n');
      }
    }
    if (name != null) {
      steps.add(new Step(name, body.toString()));
    }
    long distinct = steps.stream().map(Step::name).distinct().count();
    if (distinct != steps.size()) {
      throw new IllegalStateException(SCRIPT + " names a step twice");
    }
    return steps;
  }

  /** Runs every step in order against one target; the outputs by step name. */
  static Map<String, StepOutput> run(List<Step> steps, Target target) {
    try {
      Path bin = Files.createDirectories(target.scratch().resolve("bin"));
      Path link = bin.resolve("kubectl");
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, target.kubectl());
      Files.createDirectories(target.work());
      Files.createDirectories(target.scratch().resolve("home"));
      Map<String, StepOutput> outputs = new LinkedHashMap<>();
      for (Step step : steps) {
        outputs.put(step.name(), runStep(step, target, bin));
      }
      return outputs;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static StepOutput runStep(Step step, Target target, Path bin) throws IOException {
    Path out = target.scratch().resolve("step.out");
    Path err = target.scratch().resolve("step.err");
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", "set -uo pipefail\n" + step.script())
            .directory(target.scratch().toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("KUBECTL_") || k.startsWith("KUBE"));
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("KUBECONFIG", target.kubeconfig().toString());
    env.put("HOME", target.scratch().resolve("home").toString());
    env.put("NS", target.namespace());
    env.put("RUN", target.run());
    env.put("WORK", target.work().toString());
    // the same bytes whatever the machine's locale and terminal: sort order, no colours
    env.put("LC_ALL", "C");
    env.put("TERM", "dumb");
    Process p = pb.start();
    try {
      if (!p.waitFor(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor();
        return new StepOutput(
            -1, read(out), read(err) + "\n[step killed after " + STEP_TIMEOUT_SECONDS + " s]");
      }
    } catch (InterruptedException e) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted in step " + step.name(), e);
    }
    return new StepOutput(p.exitValue(), read(out), read(err));
  }

  private static String read(Path file) throws IOException {
    return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
  }
}
