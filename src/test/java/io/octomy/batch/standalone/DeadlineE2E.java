package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * spec.activeDeadlineSeconds on standalone through stock kubectl: a job running {@code sleep 60}
 * with a deadline of 2 s ends Failed, reason DeadlineExceeded, within seconds, is not retried, and
 * its process is gone. A deadline out of range is refused at apply time.
 */
class DeadlineE2E {

  @TempDir Path dir;

  static String job(String name, String extraSpec, String script) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          %s
          resources:
            requests: {octomy.io/cpu-milli: 500}
          template:
            spec:
              containers: [{name: main, image: unused, command: [sh, -c, '%s']}]
        """
        .formatted(name, extraSpec, script);
  }

  private static String status(Kubectl k, String job, String field) {
    return k.run("get", "bj", job, "-o", "jsonpath={.status." + field + "}").out();
  }

  /** Whether a process whose command line holds {@code marker} runs on this machine. */
  private static boolean running(String marker) {
    try {
      Process p = new ProcessBuilder("pgrep", "-f", marker).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aRunPastItsDeadlineIsStoppedAndFailsWithDeadlineExceeded() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "dl",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));

      Path bad = dir.resolve("bad.yaml");
      Files.writeString(bad, job("bad", "activeDeadlineSeconds: 0", "true"));
      Kubectl.Result refused = k.run("apply", "-f", bad.toString());
      assertThat(refused.exitCode()).as(refused.all()).isNotZero();
      assertThat(refused.err()).contains("activeDeadlineSeconds");

      String marker = "deadline-e2e-" + UUID.randomUUID();
      Path slow = dir.resolve("slow.yaml");
      Files.writeString(
          slow, job("slow", "activeDeadlineSeconds: 2\n  backoffLimit: 3", "sleep 60 # " + marker));
      Kubectl.Result applied = k.run("apply", "-f", slow.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "slow to run",
          () -> status(k, "slow", "phase").equals("Running"));
      assertThat(running(marker)).as("its process runs").isTrue();
      long t0 = System.nanoTime();
      Eventually.until(
          Duration.ofSeconds(20),
          "slow to fail at its deadline",
          () -> status(k, "slow", "phase").equals("Failed"));
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
      assertThat(status(k, "slow", "reason")).isEqualTo("DeadlineExceeded");
      assertThat(status(k, "slow", "message"))
          .contains("It ran longer than spec.activeDeadlineSeconds (2 s)");
      assertThat(status(k, "slow", "failedRuns")).as("not retried").isEmpty();
      Eventually.until(Duration.ofSeconds(15), "its process to be stopped", () -> !running(marker));
      assertThat(status(k, "slow", "phase")).isEqualTo("Failed");
    }
  }
}
