package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.controller.aggregated.ServingReplica;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The path of docs/real-cluster.md, "Controller and agents outside the cluster": the chart
 * installed with its defaults, then {@code kubectl octomy kubeconfig --for controller|agent} writes
 * the kubeconfigs, and a controller and a Process agent started with them (nothing else) decide and
 * run a first job, the chart's own-node policy on (its default): the agent's account, one of its
 * own per node, may write its BatchNode and is refused another's. Before the install the command
 * refuses with a sentence naming how to install. On a control plane of its own, as a newcomer's.
 */
class OutOfClusterKubeconfigE2E {

  private static RealCluster cluster;
  private static KubectlRun kubectl;
  private static Path dir;

  @BeforeAll
  static void ownControlPlane() throws Exception {
    cluster = RealCluster.startAt(Path.of("target", "out-of-cluster").toAbsolutePath());
    dir = Files.createDirectories(cluster.dir().resolve("newcomer"));
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    Files.copy(
        Path.of("target", "kubectl-octomy"),
        plugins.resolve("kubectl-octomy"),
        StandardCopyOption.REPLACE_EXISTING);
    kubectl = new KubectlRun(cluster.kubeconfig(), dir.resolve("home"), plugins);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theWrittenKubeconfigsRunAControllerAndAnAgentToAFirstJob() throws Exception {
    Path controllerConfig = dir.resolve("controller.kubeconfig");
    KubectlRun.Result refused =
        kubectl.run(
            "octomy", "kubeconfig", "--for", "controller", "-o", controllerConfig.toString());
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.err())
        .contains("the ServiceAccount octomy-system/octomy-batch-controller does not exist on")
        .contains("helm install octomy-batch helm/octomy-batch -n octomy-system");
    assertThat(controllerConfig).doesNotExist();

    new Helm(HelmChartOnRealServerIT.CHART)
        .install()
        .withKubeConfig(cluster.kubeconfig())
        .withName("octomy-batch")
        .withNamespace("octomy-system")
        .createNamespace()
        .call();
    KubectlRun.Result controllerWritten =
        kubectl.run(
            "octomy", "kubeconfig", "--for", "controller", "-o", controllerConfig.toString());
    assertThat(controllerWritten.exitCode()).as(controllerWritten.all()).isZero();
    assertThat(controllerWritten.err())
        .contains("ServiceAccount octomy-system/octomy-batch-controller")
        .contains("token valid until");
    assertThat(Files.getPosixFilePermissions(controllerConfig))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    Path agentConfig = dir.resolve("ws-1.kubeconfig");
    KubectlRun.Result agentWritten =
        kubectl.run(
            "octomy",
            "kubeconfig",
            "--for",
            "agent",
            "--node",
            "ws-1",
            "--duration",
            "1h",
            "-o",
            agentConfig.toString());
    assertThat(agentWritten.exitCode()).as(agentWritten.all()).isZero();
    assertThat(agentWritten.err())
        .contains("ServiceAccount octomy-system/octomy-batch-agent-node-ws-1")
        .contains("agent --node ws-1");
    KubectlRun.Result writtenAgain =
        kubectl.run(
            "octomy",
            "kubeconfig",
            "--for",
            "agent",
            "--node",
            "ws-1",
            "-o",
            agentConfig.toString());
    assertThat(writtenAgain.exitCode()).as("the account exists: a new token").isZero();
    assertThat(
            cluster
                .admin()
                .serviceAccounts()
                .inNamespace("octomy-system")
                .withName("octomy-batch-agent-node-ws-1")
                .get()
                .getMetadata()
                .getLabels())
        .containsEntry("app.kubernetes.io/instance", "octomy-batch")
        .containsEntry("app.kubernetes.io/component", "agent");
    KubectlRun asAgent = new KubectlRun(agentConfig, dir.resolve("home-a"));
    assertThat(asAgent.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").out())
        .isEqualTo("system:serviceaccount:octomy-system:octomy-batch-agent-node-ws-1");

    KubectlRun asController = new KubectlRun(controllerConfig, dir.resolve("home-c"));
    assertThat(
            asController.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").out())
        .isEqualTo("system:serviceaccount:octomy-system:octomy-batch-controller");

    try (ProductProcess controller =
            ProductProcess.start(
                dir.resolve("controller.log"),
                Map.of(),
                "controller",
                "--kubeconfig",
                controllerConfig.toString(),
                "--metrics-port",
                "-1");
        ProductProcess agent =
            ProductProcess.start(
                dir.resolve("agent.log"),
                Map.of(),
                "agent",
                "--node",
                "ws-1",
                "--executor",
                "Process",
                "--capacity",
                "octomy.io/cpu-milli=4000",
                "--kubeconfig",
                agentConfig.toString(),
                "--logs-address",
                "127.0.0.1",
                "--logs-port",
                "0",
                "--state-dir",
                Files.createDirectories(dir.resolve("ws-1")).toString())) {
      controller.awaitLine("octomy-batch controller watching", Duration.ofSeconds(90));
      agent.awaitLine("agent for node ws-1", Duration.ofSeconds(60));
      // The chart registers the visibility API this controller does not serve: said at start.
      assertThat(controller.output())
          .contains(
              "APIService v1alpha1.visibility.batch.octomy.io is registered, but this controller"
                  + " does not serve it (--visibility-port -1)")
          .contains("--set visibility.enabled=false");
      String ns = cluster.namespace("first");
      KubectlRun.Result created =
          kubectl.run("apply", "-n", ns, "-f", "examples/job-burstable.yaml");
      assertThat(created.exitCode()).as(created.all()).isZero();
      String name = "mesh-export-12";
      Eventually.within(
          90,
          () -> {
            BatchJob j =
                cluster.admin().resources(BatchJob.class).inNamespace(ns).withName(name).get();
            assertThat(j.getStatus()).isNotNull();
            assertThat(j.getStatus().getPhase()).isEqualTo(JobPhase.Succeeded);
            assertThat(j.getStatus().getNode()).isEqualTo("ws-1");
          });

      BatchNode other = new BatchNode();
      other.setMetadata(new ObjectMetaBuilder().withName("ws-2").build());
      other.setSpec(cluster.admin().resources(BatchNode.class).withName("ws-1").get().getSpec());
      KubectlRun.Result otherNode =
          asAgent.runWithInput(Serialization.asYaml(other), "create", "-f", "-");
      assertThat(otherNode.exitCode()).as(otherNode.all()).isNotZero();
      assertThat(otherNode.err())
          .contains("an agent may write only the BatchNode of its own node, not ws-2");
      assertThat(cluster.admin().resources(BatchNode.class).withName("ws-2").get()).isNull();
    }

    // Turned off as the controller's warning says: nothing left registered pointing nowhere.
    new Helm(HelmChartOnRealServerIT.CHART)
        .upgrade()
        .withKubeConfig(cluster.kubeconfig())
        .withName("octomy-batch")
        .withNamespace("octomy-system")
        .reuseValues()
        .set("visibility.enabled", false)
        .call();
    assertThat(
            cluster
                .admin()
                .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
                .withName(ServingReplica.API_SERVICE)
                .get())
        .isNull();
    assertThat(
            cluster
                .admin()
                .genericKubernetesResources(
                    "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")
                .withName(ServingReplica.WEBHOOK_CONFIGURATION)
                .get())
        .isNull();
  }
}
