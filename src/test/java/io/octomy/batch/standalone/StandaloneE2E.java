package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The product end to end, as a new user meets it: {@code standalone} in its own JVM, driven by the
 * real kubectl. Jobs run as real processes on this machine.
 */
class StandaloneE2E {

  @TempDir Path dir;

  private Path home;

  @BeforeEach
  void kubectlPresent() throws Exception {
    // the tier runs or fails: a machine without kubectl cannot show this test passing
    assertThat(Kubectl.versions())
        .as("kubectl on the PATH (the end-to-end tests drive it)")
        .isNotEmpty();
    home = Files.createDirectories(dir.resolve("home"));
  }

  private String job(String name, String command, long cpu) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          resources:
            requests: {octomy.io/cpu-milli: %d}
            limits: {octomy.io/cpu-milli: %d}
          template:
            spec:
              containers:
              - name: main
                image: unused
                command: [sh, -c, '%s']
        """
        .formatted(name, cpu, cpu, command);
  }

  private Path write(String name, String yaml) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, yaml);
    return f;
  }

  @Test
  void aNewUsersSession() throws Exception {
    // More memory than the test machine's whole use reaches: a BestEffort job waits while the
    // node's measured use is at or above its offer, and other builds on the machine count as use.
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "e2e",
            "--capacity",
            "octomy.io/cpu-milli=4000",
            "--capacity",
            "octomy.io/memory-bytes=256000000000")) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);

      // The examples apply (the Guaranteed one needs example.com/su2-processes, which this node
      // lacks).
      Kubectl.Result applied =
          k.run(
              "apply",
              "-f",
              "examples/job-guaranteed.yaml",
              "-f",
              "examples/job-burstable.yaml",
              "-f",
              "examples/job-besteffort.yaml",
              "-f",
              "examples/pipeline.yaml");
      assertThat(applied.exitCode()).as(applied.all()).isZero();

      // One listing read as a whole: solve-ernie says NoNodeFits only until solve-41-a takes the
      // lock they share (then WaitingForLock), so its line is checked in the listing that showed
      // it.
      String[] listed = new String[1];
      Eventually.until(
          Duration.ofSeconds(30),
          "the examples to be decided",
          () -> {
            listed[0] = k.run("get", "bj", "-o", "wide").out();
            return listed[0].contains("NoNodeFits") && listed[0].contains("Succeeded");
          });
      List<String> lines = listed[0].lines().toList();
      assertThat(lines.get(0))
          .containsSubsequence(
              "NAME", "CLASS", "PHASE", "NODE", "REASON", "AGE", "PRIORITY", "MESSAGE");
      assertThat(lines)
          .anyMatch(l -> l.matches("solve-ernie\\s+Guaranteed\\s+Queued\\s+NoNodeFits\\s+\\S+.*"))
          .anyMatch(l -> l.startsWith("solve-ernie") && l.contains("example.com/su2-processes"))
          .anyMatch(
              l -> l.matches("thumbnail-render\\s+BestEffort\\s+\\S+\\s+e2e\\s+\\S+\\s+\\S+.*"));
      assertThat(k.run("get", "bj").out().lines().findFirst().orElseThrow())
          .containsSubsequence("NAME", "CLASS", "PHASE", "NODE", "REASON", "AGE")
          .doesNotContain("MESSAGE");
      assertThat(k.run("describe", "bj", "solve-ernie").out())
          .containsPattern("Service Class:\\s+Guaranteed");

      // kubectl get -w sees a new job move from queued to done.
      Path watchOut = dir.resolve("watch.txt");
      Process watch = k.startTo(watchOut, "get", "bj", "-w");
      try {
        assertThat(
                k.run(
                        "apply",
                        "-f",
                        write("hello.yaml", job("hello", "echo hello", 500)).toString())
                    .exitCode())
            .isZero();
        Eventually.until(
            Duration.ofSeconds(30),
            "get -w to show hello succeeding",
            () ->
                read(watchOut)
                    .lines()
                    .anyMatch(l -> l.startsWith("hello ") && l.contains("Succeeded")));
      } finally {
        watch.destroy();
      }

      // A node switched Off takes nothing new: the next job cannot fit anywhere.
      Kubectl.Result patched =
          k.run("patch", "bn", "e2e", "--type=merge", "-p", "{\"spec\":{\"mode\":\"Off\"}}");
      assertThat(patched.exitCode()).as(patched.all()).isZero();
      assertThat(
              k.run("apply", "-f", write("late.yaml", job("late", "echo late", 500)).toString())
                  .exitCode())
          .isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "late to find no node",
          () -> k.run("get", "bj", "late").out().contains("NoNodeFits"));

      // A bad manifest is refused at apply time with the rule's words.
      Kubectl.Result bad =
          k.run(
              "apply",
              "-f",
              write(
                      "bad.yaml",
                      job("bad", "true", 1).replace("octomy.io/cpu-milli: 1}", "cfd-cores: 1}"))
                  .toString());
      assertThat(bad.exitCode()).isNotZero();
      assertThat(bad.err()).contains("resource name 'cfd-cores' has no domain");

      // Without the token the server answers 401.
      Kubectl.Result anonymous = k.run("--token=wrong", "get", "bj");
      assertThat(anonymous.exitCode()).isNotZero();
      assertThat(anonymous.err()).containsIgnoringCase("unauthorized");

      assertThat(k.run("delete", "bj", "late").exitCode()).isZero();
      assertThat(k.run("get", "bj", "late").err()).contains("NotFound");
    }
  }

  @Test
  void killedHardMidRunItComesBackWithNothingLostAndNothingRunTwice() throws Exception {
    Path marker = dir.resolve("starts.txt");
    Path state = dir.resolve("state");
    String body = "echo started >> " + marker + "; sleep 4; echo finished >> " + marker;
    try (StandaloneProcess first =
        StandaloneProcess.start(
            state,
            dir.resolve("first.log"),
            "--node",
            "e2e",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), first.kubeconfig, home);
      assertThat(
              k.run("apply", "-f", write("long.yaml", job("long", body, 1000)).toString())
                  .exitCode())
          .isZero();
      // Queued behind long when the kill comes, so they must survive in the store, not in memory.
      for (int i = 0; i < 5; i++) {
        String queued =
            job("q" + i, "true", 1000).replace("\nspec:\n", "\nspec:\n  after: [long]\n");
        assertThat(k.run("apply", "-f", write("q" + i + ".yaml", queued).toString()).exitCode())
            .isZero();
      }
      Eventually.until(
          Duration.ofSeconds(30), "long to start", () -> read(marker).contains("started"));
      first.kill();
    }
    try (StandaloneProcess second =
        StandaloneProcess.start(
            state,
            dir.resolve("second.log"),
            "--node",
            "e2e",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), second.kubeconfig, home);
      try {
        Eventually.until(
            Duration.ofSeconds(40),
            "every job to succeed",
            () -> {
              String out = k.run("get", "bj", "--no-headers").out();
              return out.lines().count() == 6 && out.lines().allMatch(l -> l.contains("Succeeded"));
            });
      } catch (AssertionError e) {
        // What a reader of a failed run needs: where each job stands and what both runs logged.
        throw new AssertionError(
            e.getMessage()
                + "\n--- kubectl get bj -o wide\n"
                + k.run("get", "bj", "-o", "wide").all()
                + "\n--- kubectl get bn -o yaml\n"
                + k.run("get", "bn", "-o", "yaml").all()
                + "\n--- marker\n"
                + read(marker)
                + "\n--- first run log (tail)\n"
                + tail(dir.resolve("first.log"))
                + "\n--- second run log (tail)\n"
                + tail(dir.resolve("second.log")),
            e);
      }
      assertThat(read(marker).lines().filter("started"::equals))
          .as("the long job ran once")
          .hasSize(1);
      assertThat(read(marker)).contains("finished");
    }
  }

  private static String tail(Path p) {
    List<String> lines = read(p).lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  private static String read(Path p) {
    try {
      return Files.exists(p) ? Files.readString(p) : "";
    } catch (IOException e) {
      return "";
    }
  }

  @Test
  void aRealProcessAboveItsLimitIsMarkedOverLimitAndLeftRunning() throws Exception {
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "e2e",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);
      // Declares 100 milli-cores and burns a whole core for four seconds, then exits 0 on its own.
      String burn = "end=$(( $(date +%s) + 4 )); while [ $(date +%s) -lt $end ]; do :; done";
      String yaml = job("burner", burn, 100);
      assertThat(k.run("apply", "-f", write("burner.yaml", yaml).toString()).exitCode()).isZero();
      Eventually.until(
          Duration.ofSeconds(40),
          "burner to finish",
          () -> k.run("get", "bj", "burner").out().contains("Succeeded"));
      String json =
          k.run(
                  "get",
                  "bj",
                  "burner",
                  "-o",
                  "jsonpath={.status.overLimit}{\"|\"}{.status.usage}{\"|\"}{.status.exitCode}")
              .out();
      assertThat(json).as(json).startsWith("[\"octomy.io/cpu-milli\"]|").endsWith("|0");
      assertThat(k.run("describe", "bj", "burner").out())
          .contains("OverLimit", "is above its limit 100");
      assertThat(k.run("get", "events", "--field-selector", "reason=OverLimit").out())
          .contains("burner");
    }
  }
}
