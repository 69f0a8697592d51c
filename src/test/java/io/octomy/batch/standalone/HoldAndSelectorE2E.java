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
 * spec.suspend and spec.nodeSelector on standalone through stock kubectl: a suspended job is Held
 * until a patch releases it; a job whose nodeSelector no node's labels match waits NoNodeFits until
 * {@code kubectl label bn} gives the node the label. Suspending an admitted job changes nothing;
 * its nodeSelector is fixed from then on.
 */
class HoldAndSelectorE2E {

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
              containers: [{name: main, image: unused, command: [sh, -c, 'true']}]
        """
        .formatted(name, extraSpec);
  }

  private static String status(Kubectl k, String job, String field) {
    return k.run("get", "bj", job, "-o", "jsonpath={.status." + field + "}").out();
  }

  private static void awaitStarted(Kubectl k, String job) {
    Eventually.until(
        Duration.ofSeconds(30),
        job + " to be admitted",
        () -> !status(k, job, "admittedAt").isEmpty());
  }

  @Test
  void aHeldJobWaitsUntilReleasedAndASelectorUntilANodeIsLabelled() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "sel",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));

      Path paused = dir.resolve("paused.yaml");
      Files.writeString(paused, job("paused", "suspend: true"));
      Kubectl.Result applied = k.run("apply", "-f", paused.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "paused to be Held",
          () -> status(k, "paused", "reason").equals("Held"));
      assertThat(status(k, "paused", "phase")).isEqualTo("Queued");
      assertThat(status(k, "paused", "message"))
          .contains("kubectl patch bj paused -n default --type=merge");
      String queuedAt = status(k, "paused", "queuedAt");
      Kubectl.Result released =
          k.run("patch", "bj", "paused", "--type=merge", "-p", "{\"spec\":{\"suspend\":false}}");
      assertThat(released.exitCode()).as(released.all()).isZero();
      awaitStarted(k, "paused");
      assertThat(status(k, "paused", "queuedAt")).as("queue time kept").isEqualTo(queuedAt);
      // Suspending a job that was admitted is accepted and changes nothing; a condition says so.
      Kubectl.Result late =
          k.run("patch", "bj", "paused", "--type=merge", "-p", "{\"spec\":{\"suspend\":true}}");
      assertThat(late.exitCode()).as(late.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "paused to say the edit changed nothing",
          () ->
              status(k, "paused", "conditions[?(@.type==\"SpecChangeIgnored\")].status")
                  .equals("True"));
      assertThat(status(k, "paused", "reason")).isNotEqualTo("Held");
      assertThat(status(k, "paused", "phase")).isNotEqualTo("Queued");

      Path picky = dir.resolve("picky.yaml");
      Files.writeString(picky, job("picky", "nodeSelector: {disk: ssd}"));
      applied = k.run("apply", "-f", picky.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "picky to wait NoNodeFits",
          () -> status(k, "picky", "reason").equals("NoNodeFits"));
      assertThat(status(k, "picky", "message"))
          .contains("no ready node has the labels disk=ssd that spec.nodeSelector asks for")
          .contains("kubectl label bn NODE disk=ssd");
      Kubectl.Result labelled = k.run("label", "bn", "sel", "disk=ssd");
      assertThat(labelled.exitCode()).as(labelled.all()).isZero();
      awaitStarted(k, "picky");
      assertThat(status(k, "picky", "node")).isEqualTo("sel");
      Kubectl.Result moved =
          k.run(
              "patch",
              "bj",
              "picky",
              "--type=merge",
              "-p",
              "{\"spec\":{\"nodeSelector\":{\"disk\":\"hdd\"}}}");
      assertThat(moved.exitCode()).as(moved.all()).isNotZero();
      assertThat(moved.err()).contains("nodeSelector and type cannot change once");

      // A selector the CRD's rule refuses is refused at apply time, with its message.
      Path bad = dir.resolve("bad.yaml");
      Files.writeString(bad, job("bad", "nodeSelector: {'-disk': ssd}"));
      Kubectl.Result refused = k.run("apply", "-f", bad.toString());
      assertThat(refused.exitCode()).as(refused.all()).isNotZero();
      assertThat(refused.err()).contains("nodeSelector maps label keys");
    }
  }
}
