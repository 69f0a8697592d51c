package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Pod-executor node on the real server: the controller creates one Pod per admitted job, bound to
 * the node and owned by the BatchJob; KWOK plays the node's kubelet (the Pod runs, then ends with
 * the exit code its job's command names). The agent runs as its own process with a token for the
 * chart's ServiceAccount.
 */
class PodExecutorE2E {

  static final String NODE = "pod-node-1";
  private static ProductDeployment product;
  private static KubernetesClient admin;
  private static ProductProcess agent;
  private static ProductProcess controller;
  private static KwokKubelet kubelet;

  @BeforeAll
  static void deploy() throws Exception {
    product = ProductDeployment.get();
    admin = product.cluster().admin();
    Path policy = product.policyFile();
    KwokKubelet.node(admin, NODE);
    kubelet = KwokKubelet.start(product.cluster(), product.dir().resolve("kwok"));
    agent =
        AgentReplica.agent(
            product,
            policy,
            NODE,
            "Pod",
            Map.of("example.com/pod-slots", 2L, "octomy.io/cpu-milli", 2000L));
    controller = ControllerReplica.controller(product, policy, "octomy-batch-controller-pods");
    Eventually.within(
        60,
        () ->
            assertThat(admin.resources(BatchNode.class).withName(NODE).get().getStatus())
                .isNotNull());
  }

  @AfterAll
  static void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
    if (agent != null) {
      agent.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    // Its offer would stay in the pool until the heartbeat timeout; the next class must not get it.
    if (admin != null) {
      admin.resources(BatchNode.class).withName(NODE).delete();
      admin.nodes().withName(NODE).delete();
    }
  }

  @Test
  void anAdmittedJobGetsABoundOwnedPodAndSucceedsWithIt() throws Exception {
    String ns = product.cluster().namespace("pods");
    apply(ns, job("render", "requests: {example.com/pod-slots: 1}", "exit 0"));
    Eventually.within(90, () -> assertThat(phase(ns, "render")).isEqualTo(JobPhase.Succeeded));
    BatchJob job = admin.resources(BatchJob.class).inNamespace(ns).withName("render").get();
    assertThat(job.getStatus().getNode()).isEqualTo(NODE);
    assertThat(job.getStatus().getExitCode()).isZero();
    Pod pod = jobPod(ns, "render");
    assertThat(pod.getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(pod.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getKind()).isEqualTo("BatchJob");
              assertThat(o.getUid()).isEqualTo(job.getMetadata().getUid());
            });
    assertThat(pod.getSpec().getContainers().get(0).getResources().getLimits())
        .as("limits are never set")
        .isNullOrEmpty();

    apply(ns, job("crash", "requests: {example.com/pod-slots: 1}", "exit 7"));
    Eventually.within(90, () -> assertThat(phase(ns, "crash")).isEqualTo(JobPhase.Failed));
    assertThat(
            admin
                .resources(BatchJob.class)
                .inNamespace(ns)
                .withName("crash")
                .get()
                .getStatus()
                .getExitCode())
        .isEqualTo(7);

    // The garbage collector removes a deleted job's Pod (owner reference, blockOwnerDeletion).
    admin.resources(BatchJob.class).inNamespace(ns).withName("render").delete();
    Eventually.within(
        60,
        () ->
            assertThat(
                    admin.pods().inNamespace(ns).withLabel(Labels.JOB, "render").list().getItems())
                .isEmpty());
  }

  @Test
  void aRunningJobWhosePodIsDeletedFailsAndFreesItsPlace() throws Exception {
    String ns = product.cluster().namespace("pod-deleted");
    apply(ns, job("forever-1", "requests: {example.com/pod-slots: 2}", "sleep infinity"));
    Eventually.within(90, () -> assertThat(phase(ns, "forever-1")).isEqualTo(JobPhase.Running));
    apply(ns, job("next", "requests: {example.com/pod-slots: 2}", "exit 0"));
    Eventually.within(30, () -> assertThat(reason(ns, "next")).isEqualTo("WaitingForCapacity"));
    KubectlRun.Result delete =
        product
            .cluster()
            .kubectl()
            .run("delete", "pod", "-n", ns, "-l", Labels.JOB + "=forever-1", "--wait=false");
    assertThat(delete.exitCode()).as(delete.all()).isZero();
    Eventually.within(60, () -> assertThat(phase(ns, "forever-1")).isEqualTo(JobPhase.Failed));
    BatchJob failed = admin.resources(BatchJob.class).inNamespace(ns).withName("forever-1").get();
    assertThat(List.of("PodDeleted", "Failed")).contains(failed.getStatus().getReason());
    Eventually.within(90, () -> assertThat(phase(ns, "next")).isEqualTo(JobPhase.Succeeded));
  }

  @Test
  void aFinishedJobGoesWithItsPodAfterItsTtlAndStillCountsForADependantCreatedLater() {
    String ns = product.cluster().namespace("pod-ttl");
    apply(
        ns,
        job("short", "requests: {example.com/pod-slots: 1}", "exit 0")
            .replace("\n  template:", "\n  ttlSecondsAfterFinished: 5\n  template:"));
    Eventually.within(90, () -> assertThat(phase(ns, "short")).isEqualTo(JobPhase.Succeeded));
    String uid =
        admin
            .resources(BatchJob.class)
            .inNamespace(ns)
            .withName("short")
            .get()
            .getMetadata()
            .getUid();
    assertThat(jobPod(ns, "short").getMetadata().getLabels()).containsEntry(Labels.JOB_UID, uid);
    Eventually.within(
        60,
        () -> {
          assertThat(admin.resources(BatchJob.class).inNamespace(ns).withName("short").get())
              .isNull();
          assertThat(admin.pods().inNamespace(ns).withLabel(Labels.JOB, "short").list().getItems())
              .isEmpty();
        });
    assertThat(
            admin
                .configMaps()
                .inNamespace(ns)
                .withName("octomy-batch-succeeded-jobs")
                .get()
                .getData())
        .hasEntrySatisfying("short", entry -> assertThat(entry).endsWith(" " + uid));

    apply(
        ns,
        job("after-short", "requests: {example.com/pod-slots: 1}", "exit 0")
            .replace("\n  template:", "\n  after: [short]\n  template:"));
    Eventually.within(90, () -> assertThat(phase(ns, "after-short")).isEqualTo(JobPhase.Succeeded));
  }

  /**
   * A job whose Pod KWOK ends with the exit code its command names ({@code exit N}); a command
   * without one keeps running.
   */
  private static String job(String name, String requests, String command) {
    String yaml = ClusterModeE2E.job(name, requests, command);
    if (!command.matches(".*exit \\d+.*")) {
      return yaml;
    }
    String exit = command.replaceAll(".*exit (\\d+).*", "$1");
    return yaml.replace(
        "template: {spec:",
        "template: {metadata: {labels: {" + KwokKubelet.EXIT_LABEL + ": '" + exit + "'}}, spec:");
  }

  private static Pod jobPod(String ns, String job) {
    List<Pod> pods = admin.pods().inNamespace(ns).withLabel(Labels.JOB, job).list().getItems();
    assertThat(pods).hasSize(1);
    return pods.get(0);
  }

  private static JobPhase phase(String ns, String name) {
    BatchJob j = admin.resources(BatchJob.class).inNamespace(ns).withName(name).get();
    return j == null || j.getStatus() == null ? null : j.getStatus().getPhase();
  }

  private static String reason(String ns, String name) {
    BatchJob j = admin.resources(BatchJob.class).inNamespace(ns).withName(name).get();
    return j == null || j.getStatus() == null ? null : j.getStatus().getReason();
  }

  private static void apply(String ns, String yaml) {
    KubectlRun.Result r =
        product.cluster().kubectl().runWithInput(yaml, "apply", "-n", ns, "-f", "-");
    assertThat(r.exitCode()).as(r.all()).isZero();
  }
}
