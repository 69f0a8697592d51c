package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.apiserver.StateDatabaseRows;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single writes with stock kubectl that used to leave standalone unable to start: an {@code
 * ownerReferences} of the wrong type (the controller's informer stopped, and every start failed)
 * and a container with an empty item or a NUL character (the agent failed on it forever). Each is
 * refused with 422 and a message naming the field; the product goes on deciding and running a fresh
 * job; a restart serves; and a row of such a shape already in the state database is set aside at
 * start rather than stopping it.
 */
class HostileWritesE2E {

  @TempDir Path dir;

  private Path home;

  @BeforeEach
  void kubectlPresent() throws Exception {
    assertThat(Kubectl.versions())
        .as("kubectl on the PATH (the end-to-end tests drive it)")
        .isNotEmpty();
    home = Files.createDirectories(dir.resolve("home"));
  }

  /** A BatchJob as JSON (YAML has no way kubectl keeps a NUL), its container holding extra. */
  private static String job(String name, String containerFields) {
    return ("{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":"
            + "{\"name\":\"%s\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
            + "\"main\",\"image\":\"unused\",\"command\":[\"true\"]%s}]}}}}")
        .formatted(name, containerFields);
  }

  @Test
  void eachBrickingWriteIsRefusedAndTheProductGoesOnAndRestarts() throws Exception {
    Path state = dir.resolve("state");
    try (StandaloneProcess sa = standalone(state, "first.log")) {
      Kubectl k = kubectl(sa);
      apply(k, "target", "");
      awaitPhase(k, "target", "Succeeded");

      for (String ownerReferences : List.of("\"x\"", "[1]", "{\"name\":\"p\"}")) {
        Kubectl.Result merge =
            k.run(
                "patch",
                "bj",
                "target",
                "--type=merge",
                "-p",
                "{\"metadata\":{\"ownerReferences\":" + ownerReferences + "}}");
        assertThat(merge.exitCode()).as(merge.all()).isNotZero();
        assertThat(merge.err())
            .as(ownerReferences)
            .contains("is invalid", "metadata.ownerReferences", "must be of type");
        Kubectl.Result json =
            k.run(
                "patch",
                "bj",
                "target",
                "--type=json",
                "-p",
                "[{\"op\":\"add\",\"path\":\"/metadata/ownerReferences\",\"value\":"
                    + ownerReferences
                    + "}]");
        assertThat(json.exitCode()).as(json.all()).isNotZero();
        assertThat(json.err()).contains("metadata.ownerReferences");
      }
      assertThat(
              k.run(
                      "patch",
                      "bj",
                      "target",
                      "--type=merge",
                      "-p",
                      "{\"metadata\":{\"ownerReferences\":\"x\"}}")
                  .err())
          .contains("write a list like [{apiVersion:");

      String[][] containers = {
        {"env-null", ",\"env\":[null]", "env[0]"},
        {"args-null", ",\"args\":[null]", "args[0]"},
        {"command-null", ",\"command\":[\"echo\",null]", "command[1]"},
        {"working-dir-nul", ",\"workingDir\":\"/tmp/a\\u0000b\"", "workingDir"},
        {"env-value-nul", ",\"env\":[{\"name\":\"A\",\"value\":\"x\\u0000\"}]", "env[0].value"},
      };
      for (String[] c : containers) {
        Path f = dir.resolve(c[0] + ".json");
        Files.writeString(f, job(c[0], c[1]));
        Kubectl.Result created = k.run("create", "-f", f.toString());
        assertThat(created.exitCode()).as(created.all()).isNotZero();
        assertThat(created.err())
            .as(c[0])
            .contains("spec.template.spec.containers[0]." + c[2], "is invalid");
        assertThat(k.run("get", "bj", c[0]).err()).contains("NotFound");
      }

      apply(k, "fresh", "");
      awaitPhase(k, "fresh", "Succeeded");
      assertThat(sa.output()).doesNotContain("Stopping the operator", "NullPointerException");
      sa.stop();
    }

    // A row an older version stored, written straight into the state database.
    StateDatabaseRows.put(
        state.resolve("state.db"),
        "/batch.octomy.io/batchjobs",
        "default",
        "old-owned",
        1_000_000,
        "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{"
            + "\"name\":\"old-owned\",\"namespace\":\"default\",\"uid\":\"u-old\","
            + "\"ownerReferences\":\"x\"},\"spec\":{\"template\":{\"spec\":{\"containers\":"
            + "[{\"name\":\"main\",\"command\":[\"true\"]}]}}}}");
    try (StandaloneProcess sa = standalone(state, "second.log")) {
      Kubectl k = kubectl(sa);
      assertThat(phase(k, "fresh")).isEqualTo("Succeeded");
      assertThat(k.run("get", "bj", "old-owned").err()).contains("NotFound");
      apply(k, "after-restart", "");
      awaitPhase(k, "after-restart", "Succeeded");
      assertThat(sa.output()).contains("old-owned").doesNotContain("Stopping the operator");
    }
  }

  private StandaloneProcess standalone(Path state, String log) throws Exception {
    return StandaloneProcess.start(
        state, dir.resolve(log), "--node", "e2e", "--capacity", "octomy.io/cpu-milli=4000");
  }

  private Kubectl kubectl(StandaloneProcess sa) {
    return new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);
  }

  private void apply(Kubectl k, String name, String containerFields) throws Exception {
    Path f = dir.resolve(name + ".json");
    Files.writeString(f, job(name, containerFields));
    Kubectl.Result applied = k.run("apply", "-f", f.toString());
    assertThat(applied.exitCode()).as(applied.all()).isZero();
  }

  private static void awaitPhase(Kubectl k, String name, String phase) {
    Eventually.until(
        Duration.ofSeconds(60), name + " to be " + phase, () -> phase(k, name).equals(phase));
  }

  private static String phase(Kubectl k, String name) {
    return k.run("get", "bj", name, "-o", "jsonpath={.status.phase}").out().trim();
  }
}
