package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that replaces its own output file with a FIFO cannot hang the server: eight concurrent
 * {@code kubectl octomy logs} calls for it (as many as the server has request workers) are each
 * answered at once with a sentence, and the API still answers {@code /version} after them. The
 * plugin answers a name that is not one with a sentence, through kubectl as a user runs it.
 */
@DisabledOnOs(OS.WINDOWS)
class HostileJobOutputE2E {

  private static final int CALLS = 8;

  @TempDir Path dir;

  @Test
  void aFifoForOutputIsRefusedAtOnceAndTheApiStillAnswers() throws Exception {
    Path state = dir.resolve("state");
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            state,
            dir.resolve("standalone.log"),
            "--node",
            "fifo",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));
      Path manifest = dir.resolve("fifo.yaml");
      Files.writeString(
          manifest,
          VisibilityE2E.job(
              "fifo-job", 500, "", "rm -f ../output.log && mkfifo ../output.log && sleep 300"));
      Kubectl.Result applied = k.run("apply", "-f", manifest.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Path jobs = state.resolve("agent").resolve("jobs").resolve("default").resolve("fifo-job");
      Eventually.until(Duration.ofSeconds(60), "the job's output to be a FIFO", () -> fifoIn(jobs));

      Path bin = Files.createDirectories(dir.resolve("bin"));
      Files.copy(
          Path.of("target", "kubectl-octomy").toAbsolutePath(), bin.resolve("kubectl-octomy"));
      assertThat(bin.resolve("kubectl-octomy").toFile().setExecutable(true)).isTrue();
      Kubectl octomy = k.withPluginsFrom(bin);

      long start = System.nanoTime();
      List<Process> calls = new ArrayList<>();
      List<Path> outputs = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        Path out = dir.resolve("logs-" + i + ".txt");
        outputs.add(out);
        calls.add(octomy.startTo(out, "octomy", "logs", "fifo-job"));
      }
      // Before the fix each call held a request worker for ever (the server's read waited for a
      // writer), the plugin gave up after 60 s, and /version waited behind them.
      List<Boolean> answered = new ArrayList<>();
      for (Process p : calls) {
        answered.add(p.waitFor(Math.max(1, 40 - elapsedSeconds(start)), TimeUnit.SECONDS));
      }
      for (Process p : calls) {
        p.destroyForcibly().waitFor();
      }
      for (int i = 0; i < CALLS; i++) {
        String said = Files.readString(outputs.get(i));
        assertThat(answered.get(i)).as("logs call %d answered within 40 s: %s", i, said).isTrue();
        assertThat(calls.get(i).exitValue()).as(said).isEqualTo(1);
        assertThat(said)
            .startsWith("Error from server (InternalError): the output of batchjob fifo-job cannot")
            .contains("output.log is a FIFO, not a regular file (the job replaced it)");
      }

      long asked = System.nanoTime();
      Kubectl.Result version = k.run(15, "get", "--raw", "/version");
      assertThat(version.exitCode()).as(version.all()).isZero();
      assertThat(version.out()).contains("gitVersion");
      assertThat(elapsedSeconds(asked)).isLessThan(10);

      Kubectl.Result spaced = octomy.run(60, "octomy", "logs", "a b");
      assertThat(spaced.exitCode()).isEqualTo(1);
      assertThat(spaced.err())
          .startsWith("error: \"a b\" is not a BatchJob name: ")
          .doesNotContain("\tat ");
      Kubectl.Result query = octomy.run(60, "octomy", "logs", "fifo-job?limitBytes=5");
      assertThat(query.exitCode()).isEqualTo(1);
      assertThat(query.err()).contains("options are flags, not part of the name");
    }
  }

  private static boolean fifoIn(Path jobDir) {
    if (!Files.isDirectory(jobDir)) {
      return false;
    }
    try (Stream<Path> runs = Files.list(jobDir)) {
      for (Path run : runs.toList()) {
        Path log = run.resolve("output.log");
        if (Files.exists(log, LinkOption.NOFOLLOW_LINKS)
            && Files.readAttributes(log, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .isOther()) {
          return true;
        }
      }
    } catch (IOException e) {
      return false; // the run's directory is being made: asked again
    }
    return false;
  }

  private static long elapsedSeconds(long since) {
    return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since);
  }
}
