package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.CreateFinalizers;
import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.Finalizers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting a running job, as a user does with stock kubectl against {@code standalone}: the job
 * carries no finalizer of the user's, yet it keeps its place until its real process has stopped, so
 * a second job that would not fit beside it is not admitted while the first still runs. A job that
 * holds nothing goes at once, though it carries the controller's finalizer from its create; a
 * finished job keeps that finalizer until it is deleted.
 */
class DeletionE2E {

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

  private static String job(String name, String command) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          resources:
            requests: {octomy.io/cpu-milli: 3000}
          template:
            spec:
              containers:
              - name: main
                image: unused
                command: [sh, -c, '%s']
        """
        .formatted(name, command);
  }

  @Test
  void aRunningJobDeletedWithoutAFinalizerHoldsItsPlaceUntilItsProcessHasStopped()
      throws Exception {
    Path pidFile = dir.resolve("first.pid");
    // Takes two seconds to stop once told to: the window in which its place must stay taken.
    // ($$$$ is the shell's $$ once the template's $$ escapes are expanded, as in a Pod.)
    String slowToStop =
        "echo $$$$ > " + pidFile + "; trap \"sleep 2; exit 143\" TERM; while :; do sleep 0.2; done";
    try (StandaloneProcess sa = standalone(4000)) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);
      apply(k, "first", slowToStop);
      Eventually.until(
          Duration.ofSeconds(40), "first to run", () -> phase(k, "first").equals("Running"));
      Eventually.until(
          Duration.ofSeconds(10), "first's pid", () -> Files.exists(pidFile) && pid(pidFile) > 0);
      long pid = pid(pidFile);
      assertThat(k.run("get", "bj", "first", "-o", "jsonpath={.metadata.finalizers}").out())
          .as("the controller's finalizer")
          .contains(Finalizers.RESERVATION);

      assertThat(k.run("delete", "bj", "first", "--wait=false").exitCode()).isZero();
      apply(k, "second", "sleep 30");
      assertThat(k.run("get", "bj", "first", "-o", "jsonpath={.metadata.deletionTimestamp}").out())
          .as("still there, being deleted")
          .isNotEmpty();

      // Until the first job's process has ended, the second must not be admitted.
      long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      boolean secondAdmitted = false;
      while (System.nanoTime() < deadline && !secondAdmitted) {
        String second = phase(k, "second");
        // Read after the phase: a process alive now was alive when the phase was read, while one
        // read alive before could have stopped, and the second been admitted, during that read.
        boolean alive = alive(pid);
        secondAdmitted = second.equals("Admitted") || second.equals("Running");
        if (secondAdmitted) {
          assertThat(alive)
              .as("the second job was admitted while the first one's process (pid %d) ran", pid)
              .isFalse();
        } else {
          assertThat(second).isIn("", "Queued");
        }
        Thread.sleep(100);
      }
      assertThat(secondAdmitted).as("second admitted once the first stopped").isTrue();
      Eventually.until(
          Duration.ofSeconds(20),
          "the first job to be gone",
          () -> k.run("get", "bj", "first").err().contains("NotFound"));
      assertThat(alive(pid)).isFalse();
    }
  }

  @Test
  void aWaitingJobCarriesTheFinalizerFromItsCreateKeepsItThroughApplyAndGoesWhenDeleted()
      throws Exception {
    try (StandaloneProcess sa = standalone(2000)) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);
      apply(k, "waiting", "true"); // asks for 3000 of 2000: it waits
      assertThat(k.run("get", "bj", "waiting", "-o", "jsonpath={.metadata.finalizers}").out())
          .as("on the job from its first version, before any decision")
          .contains(Finalizers.RESERVATION);
      assertThat(
              k.run("get", "bj", "waiting", "-o", "jsonpath={.metadata.managedFields[*].manager}")
                  .out())
          .as("owned by the server's manager, not the creator's")
          .contains(CreateFinalizers.MANAGER);
      Eventually.until(
          Duration.ofSeconds(30),
          "waiting to be decided",
          () -> phase(k, "waiting").equals("Queued"));

      Path manifest = dir.resolve("waiting.yaml");
      assertThat(k.run("apply", "--server-side", "-f", manifest.toString()).exitCode()).isZero();
      assertThat(k.run("get", "bj", "waiting", "-o", "jsonpath={.metadata.finalizers}").out())
          .as("a server-side apply without it leaves it on")
          .contains(Finalizers.RESERVATION);

      Kubectl.Result deleted = k.run("delete", "bj", "waiting", "--timeout=30s");
      assertThat(deleted.exitCode()).as(deleted.err()).isZero();
      assertThat(k.run("get", "bj", "waiting").err()).contains("NotFound");
    }
  }

  @Test
  void aFinishedJobKeepsTheFinalizerAndGoesWhenDeleted() throws Exception {
    try (StandaloneProcess sa = standalone(4000)) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);
      apply(k, "done", "true");
      Eventually.until(
          Duration.ofSeconds(60), "done to succeed", () -> phase(k, "done").equals("Succeeded"));
      assertThat(k.run("get", "bj", "done", "-o", "jsonpath={.metadata.finalizers}").out())
          .as("kept after the finish: the controller in this process lets it go at the delete")
          .contains(Finalizers.RESERVATION);

      Kubectl.Result deleted = k.run("delete", "bj", "done", "--timeout=30s");
      assertThat(deleted.exitCode()).as(deleted.err()).isZero();
      assertThat(k.run("get", "bj", "done").err()).contains("NotFound");
    }
  }

  /** Standalone mode on one node of this many cpu-milli. */
  private StandaloneProcess standalone(int cpuMilli) throws Exception {
    return StandaloneProcess.start(
        dir.resolve("state"),
        dir.resolve("standalone.log"),
        "--node",
        "e2e",
        "--capacity",
        "octomy.io/cpu-milli=" + cpuMilli);
  }

  private void apply(Kubectl k, String name, String command) throws Exception {
    Path f = dir.resolve(name + ".yaml");
    Files.writeString(f, job(name, command));
    assertThat(k.run("apply", "-f", f.toString()).exitCode()).isZero();
  }

  private static String phase(Kubectl k, String name) {
    return k.run("get", "bj", name, "-o", "jsonpath={.status.phase}").out().trim();
  }

  private static long pid(Path file) {
    try {
      return Long.parseLong(Files.readString(file).trim());
    } catch (Exception e) {
      return -1;
    }
  }

  /** Alive and not a zombie: a process that has ended but is not reaped yet runs nothing. */
  private static boolean alive(long pid) {
    Optional<ProcessHandle> h = ProcessHandle.of(pid);
    if (h.isEmpty() || !h.get().isAlive()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (Exception e) {
      return false;
    }
  }
}
