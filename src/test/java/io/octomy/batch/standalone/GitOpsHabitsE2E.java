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
 * What a GitOps user meets on standalone with stock kubectl: a BatchNode manifest applied
 * server-side over the node the agent created, who {@code managedFields} says wrote what, and a job
 * that ran edited in Git.
 */
class GitOpsHabitsE2E {

  @TempDir Path dir;

  @Test
  void aNodeAndAJobKeptInGitAsTheToolsApplyThem() throws Exception {
    Path node = dir.resolve("node.yaml");
    Files.writeString(
        node,
        """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchNode
        metadata: {name: gitops}
        spec: {mode: Background, executor: Process}
        """);
    Path job = dir.resolve("job.yaml");
    Files.writeString(
        job,
        """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: owned}
        spec:
          resources:
            requests: {octomy.io/cpu-milli: 100}
          template:
            spec:
              containers: [{name: main, image: unused, command: [sh, -c, 'true']}]
        """);
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "gitops",
            "--capacity",
            "octomy.io/cpu-milli=4000")) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, dir.resolve("home"));

      Kubectl.Result conflict =
          k.run("apply", "--server-side", "--field-manager=argocd-controller", "-f", "" + node);
      assertThat(conflict.exitCode()).as(conflict.all()).isNotZero();
      assertThat(conflict.err())
          .contains("conflict with \"octomy-batch-agent\"")
          .contains(".spec.mode");

      Kubectl.Result forced =
          k.run(
              "apply",
              "--server-side",
              "--field-manager=argocd-controller",
              "--force-conflicts",
              "-f",
              "" + node);
      assertThat(forced.exitCode()).as(forced.all()).isZero();
      String offers =
          "jsonpath={.status.offer.others.octomy\\.io/cpu-milli}"
              + " {.status.offer.own.octomy\\.io/cpu-milli}";
      Eventually.until(
          Duration.ofSeconds(30),
          "the node's offers in Background",
          () -> k.run("get", "bn", "gitops", "-o", offers).out().equals("3000 3000"));

      assertThat(k.run("apply", "-f", "" + job).exitCode()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "the job to succeed",
          () ->
              k.run("get", "bj", "owned", "-o", "jsonpath={.status.phase}")
                  .out()
                  .equals("Succeeded"));
      String statusManagers =
          k.run(
                  "get",
                  "bj",
                  "owned",
                  "--show-managed-fields",
                  "-o",
                  "jsonpath={.metadata.managedFields[?(@.subresource==\"status\")].manager}")
              .out();
      assertThat(statusManagers).isEqualTo("octomy-batch-controller");
      String nodeManagers =
          k.run(
                  "get",
                  "bn",
                  "gitops",
                  "--show-managed-fields",
                  "-o",
                  "jsonpath={.metadata.managedFields[*].manager}")
              .out();
      assertThat(nodeManagers).contains("octomy-batch-agent").doesNotContain("fabric8");

      // Git changes the command of the job that ran: nothing runs again, and the job says so.
      Kubectl.Result edited =
          k.run(
              "patch",
              "bj",
              "owned",
              "--type=json",
              "-p",
              "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/command/2\","
                  + "\"value\":\"echo again\"}]");
      assertThat(edited.exitCode()).as(edited.all()).isZero();
      Kubectl.Result told =
          k.run(40, "wait", "bj/owned", "--for=condition=SpecChangeIgnored", "--timeout=30s");
      assertThat(told.exitCode()).as(told.all()).isZero();
      assertThat(
              k.run(
                      "get",
                      "bj",
                      "owned",
                      "-o",
                      "jsonpath={.status.phase} {.status.conditions[?(@.type==\"SpecChangeIgnored\")]"
                          + ".message}")
                  .out())
          .startsWith("Succeeded the spec changed (generation 2) after the job succeeded");
    }
  }
}
