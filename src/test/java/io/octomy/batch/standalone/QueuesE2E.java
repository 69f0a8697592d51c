package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two teams share one machine through BatchQueues, on {@code standalone} in its own JVM, driven by
 * the real kubectl: the example queues apply, a queue's max holds its third job back while the
 * other team's jobs run, {@code kubectl get bq} shows the columns, and a queue whose min is above
 * its max is refused at apply time.
 */
class QueuesE2E {

  @TempDir Path dir;

  private String job(String namespace, String name) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s, namespace: %s}
        spec:
          resources:
            requests: {octomy.io/cpu-milli: 1000}
          template:
            spec:
              containers:
              - name: main
                image: unused
                command: [sh, -c, 'sleep 120']
        """
        .formatted(name, namespace);
  }

  @Test
  void twoTeamsShareOneNodeWithinTheirQueues() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on the PATH").isNotEmpty();
    Path home = Files.createDirectories(dir.resolve("home"));
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "e2e",
            "--capacity",
            "octomy.io/cpu-milli=8000",
            "--capacity",
            "octomy.io/memory-bytes=256000000000")) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);
      for (String ns : List.of("team-a", "team-b")) {
        Kubectl.Result created = k.run("create", "namespace", ns);
        assertThat(created.exitCode()).as(created.all()).isZero();
      }
      Kubectl.Result queues = k.run("apply", "-f", "examples/queues/two-teams.yaml");
      assertThat(queues.exitCode()).as(queues.all()).isZero();

      StringBuilder jobs = new StringBuilder();
      for (String name : List.of("a1", "a2", "a3")) {
        jobs.append(job("team-a", name)).append("---\n");
      }
      for (String name : List.of("b1", "b2")) {
        jobs.append(job("team-b", name)).append("---\n");
      }
      Path file = dir.resolve("jobs.yaml");
      Files.writeString(file, jobs.toString());
      Kubectl.Result applied = k.run("apply", "-f", file.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();

      String[] listed = new String[1];
      Eventually.until(
          Duration.ofSeconds(60),
          "team-a's third job to wait for its queue's max, team-b's to run",
          () -> {
            listed[0] = k.run("get", "bj", "-A").out();
            return listed[0].contains("WaitingForQueueMax")
                && listed[0].lines().filter(l -> l.startsWith("team-b")).count() == 2
                && listed[0]
                    .lines()
                    .filter(l -> l.startsWith("team-b"))
                    .allMatch(l -> l.contains("e2e"));
          });
      assertThat(listed[0].lines().filter(l -> l.contains("WaitingForQueueMax"))).hasSize(1);
      assertThat(listed[0].lines().filter(l -> l.startsWith("team-a") && l.contains("e2e")))
          .hasSize(2);

      String[] bq = new String[1];
      Eventually.until(
          Duration.ofSeconds(30),
          "the queues' statuses",
          () -> {
            bq[0] = k.run("get", "bq").out();
            return bq[0].lines().anyMatch(l -> l.matches("team-a\\s+1\\s+.*\\s+1\\s+2\\s+\\S+"));
          });
      List<String> lines = bq[0].lines().toList();
      assertThat(lines.get(0))
          .containsSubsequence("NAME", "WEIGHT", "USAGE", "SHARE", "PENDING", "ADMITTED", "AGE");
      assertThat(lines)
          .anyMatch(l -> l.startsWith("team-a") && l.contains("2000") && l.contains("/0.50"))
          .anyMatch(l -> l.matches("team-b\\s+1\\s+.*\\s+0\\s+2\\s+\\S+"));

      Path bad = dir.resolve("bad-queue.yaml");
      Files.writeString(
          bad,
          """
          apiVersion: batch.octomy.io/v1alpha1
          kind: BatchQueue
          metadata: {name: lab}
          spec:
            min: {octomy.io/cpu-milli: 4000}
            max: {octomy.io/cpu-milli: 2000}
          """);
      Kubectl.Result refused = k.run("apply", "-f", bad.toString());
      assertThat(refused.exitCode()).isNotZero();
      assertThat(refused.all()).contains("a min is above its max");
    }
  }
}
