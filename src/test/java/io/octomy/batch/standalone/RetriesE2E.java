package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * spec.backoffLimit on standalone through stock kubectl and the plugin: a job that exits 3 with
 * backoffLimit 2 runs three times, a back-off apart (the policy's retryBackoff of 1 s, doubled),
 * and ends Failed with failedRuns 3; each run's output stays readable. A limit out of range is
 * refused at apply time.
 */
class RetriesE2E {

  @TempDir Path dir;

  static String job(String name, String extraSpec, String script) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          type: flaky-solve
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

  @Test
  void aFailingJobIsRetriedUpToItsLimitThenFailsWithEveryRunReadable() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(policy, "retryBackoff: 1s\n");
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "rt",
            "--capacity",
            "octomy.io/cpu-milli=4000",
            "--policy",
            policy.toString())) {
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));

      Path bad = dir.resolve("bad.yaml");
      Files.writeString(bad, job("bad", "backoffLimit: -1", "true"));
      Kubectl.Result refused = k.run("apply", "-f", bad.toString());
      assertThat(refused.exitCode()).as(refused.all()).isNotZero();
      assertThat(refused.err()).contains("backoffLimit");
      Files.writeString(bad, job("bad", "backoffLimit: 21", "true"));
      refused = k.run("apply", "-f", bad.toString());
      assertThat(refused.exitCode()).as(refused.all()).isNotZero();
      assertThat(refused.err()).contains("backoffLimit");

      Path flaky = dir.resolve("flaky.yaml");
      Files.writeString(flaky, job("flaky", "backoffLimit: 2", "echo failing run; exit 3"));
      Kubectl.Result applied = k.run("apply", "-f", flaky.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "flaky to be queued",
          () -> !status(k, "flaky", "queuedAt").isEmpty());
      String queuedAt = status(k, "flaky", "queuedAt");
      Eventually.until(
          Duration.ofSeconds(60),
          "flaky to fail for good",
          () -> status(k, "flaky", "phase").equals("Failed"));
      assertThat(status(k, "flaky", "failedRuns")).isEqualTo("3");
      assertThat(status(k, "flaky", "run")).isEqualTo("3");
      assertThat(status(k, "flaky", "exitCode")).isEqualTo("3");
      assertThat(status(k, "flaky", "runs[*].exitCode")).isEqualTo("3 3");
      assertThat(status(k, "flaky", "runs[*].node")).isEqualTo("rt rt");
      assertThat(status(k, "flaky", "queuedAt")).as("queue time kept").isEqualTo(queuedAt);
      String wide = k.run("get", "bj", "flaky", "-o", "wide").out();
      assertThat(wide).contains("FAILED-RUNS");
      assertThat(wide.lines().toList().get(1)).containsPattern("Failed\\s.*\\s3\\s");
      assertThat(k.run("get", "events", "--field-selector", "involvedObject.name=flaky").out())
          .contains("BackingOff")
          .contains("failed runs 1 of backoffLimit 2")
          .contains("failed runs 2 of backoffLimit 2");
      assertThat(k.run("get", "bjp", "flaky-solve", "-o", "jsonpath={.status.runs}").out())
          .as("the drift record counts each run")
          .isEqualTo("3");

      Path plugin = Path.of("target", "kubectl-octomy").toAbsolutePath();
      assertThat(plugin).as("the build places the plugin at target/kubectl-octomy").isExecutable();
      Path bin = Files.createDirectories(dir.resolve("bin"));
      Files.copy(plugin, bin.resolve("kubectl-octomy"));
      bin.resolve("kubectl-octomy").toFile().setExecutable(true);
      Kubectl octomy = k.withPluginsFrom(bin);
      for (String run : new String[] {"1", "2", "3"}) {
        Kubectl.Result logs = octomy.run(60, "octomy", "logs", "flaky", "--run", run);
        assertThat(logs.exitCode()).as(logs.all()).isZero();
        assertThat(logs.out()).as("run " + run).isEqualTo("failing run\n");
      }
      Kubectl.Result none = octomy.run(60, "octomy", "logs", "flaky", "--run", "4");
      assertThat(none.exitCode()).isNotZero();
      assertThat(none.err()).contains("has no run 4");
    }
  }
}
