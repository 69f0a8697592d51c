package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * spec.ttlSecondsAfterFinished on standalone through stock kubectl: a job with a TTL of one second
 * is gone soon after it succeeded, with its output directory, and is recorded as succeeded; a
 * dependant created after that still runs, while one that names a job that never existed waits. A
 * negative TTL is refused at apply time.
 */
class CleanUpE2E {

  @TempDir Path dir;

  static String job(String name, String extraSpec) {
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
              containers: [{name: main, image: unused, command: [sh, -c, 'echo done']}]
        """
        .formatted(name, extraSpec);
  }

  private static String status(Kubectl k, String job, String field) {
    return k.run("get", "bj", job, "-o", "jsonpath={.status." + field + "}").out();
  }

  private static Kubectl.Result apply(Kubectl k, Path dir, String name, String extraSpec)
      throws IOException {
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, job(name, extraSpec));
    return k.run("apply", "-f", file.toString());
  }

  private static boolean hasFiles(Path dir) {
    if (!Files.exists(dir)) {
      return false;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.anyMatch(Files::isRegularFile);
    } catch (IOException e) {
      return true; // being removed right now: look again
    }
  }

  @Test
  void aJobGoesOneSecondAfterItSucceededAndADependantCreatedLaterStillRuns() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    Path state = dir.resolve("state");
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            state,
            dir.resolve("standalone.log"),
            "--node",
            "ttl",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));

      Kubectl.Result applied = apply(k, dir, "first", "ttlSecondsAfterFinished: 1");
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      String uid = k.run("get", "bj", "first", "-o", "jsonpath={.metadata.uid}").out();
      Eventually.until(
          Duration.ofSeconds(60),
          "first to be deleted after it succeeded",
          () -> k.run("get", "bj", "first").err().contains("NotFound"));
      Kubectl.Result record =
          k.run("get", "configmap", "octomy-batch-succeeded-jobs", "-o", "jsonpath={.data.first}");
      assertThat(record.out()).as(record.all()).endsWith(" " + uid);
      Path output = state.resolve("agent/jobs/default/first");
      Eventually.until(
          Duration.ofSeconds(30), "first's output to be removed", () -> !hasFiles(output));

      applied = apply(k, dir, "second", "after: [first]");
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      applied = apply(k, dir, "orphan", "after: [never-existed]");
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(60),
          "second to succeed after its cleaned-up ancestor",
          () -> status(k, "second", "phase").equals("Succeeded"));
      assertThat(status(k, "orphan", "reason")).isEqualTo("WaitingForDependency");
      assertThat(k.run("get", "bj", "second").exitCode()).as("kept: no TTL").isZero();
      assertThat(hasFiles(state.resolve("agent/jobs/default/second")))
          .as("a kept job's output stays where first's was")
          .isTrue();

      Kubectl.Result refused = apply(k, dir, "negative", "ttlSecondsAfterFinished: -1");
      assertThat(refused.exitCode()).as(refused.all()).isNotZero();
      assertThat(refused.err()).contains("ttlSecondsAfterFinished");
    }
  }
}
