package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A gang on Pod nodes of the real server: two nodes that each hold one replica, two agents, KWOK as
 * their kubelet. The gang's Pods are made together, one on each node, each told its index, the
 * count and the nodes; the job succeeds when both ended well and fails, whole, when one did not.
 */
class PodGangE2E {

  private static final List<String> NODES = List.of("gang-node-a", "gang-node-b");
  private static ProductDeployment product;
  private static KubernetesClient admin;
  private static final List<ProductProcess> agents = new ArrayList<>();
  private static ProductProcess controller;
  private static KwokKubelet kubelet;

  @BeforeAll
  static void deploy() throws Exception {
    product = ProductDeployment.get();
    admin = product.cluster().admin();
    Path policy = product.policyFile();
    for (String node : NODES) {
      KwokKubelet.node(admin, node);
    }
    kubelet = KwokKubelet.start(product.cluster(), product.dir().resolve("kwok-gang"));
    for (String node : NODES) {
      agents.add(
          AgentReplica.agent(product, policy, node, "Pod", Map.of("example.com/gang-slots", 1L)));
    }
    controller = ControllerReplica.controller(product, policy, "octomy-batch-controller-gang");
    for (String node : NODES) {
      Eventually.within(
          60,
          () ->
              assertThat(admin.resources(BatchNode.class).withName(node).get().getStatus())
                  .isNotNull());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
    for (ProductProcess agent : agents) {
      agent.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    if (admin != null) {
      for (String node : NODES) {
        admin.resources(BatchNode.class).withName(node).delete();
        admin.nodes().withName(node).delete();
      }
    }
  }

  @Test
  void aGangOfTwoGetsOnePodOnEachNodeAndSucceedsWhenBothDo() {
    String ns = product.cluster().namespace("pod-gang");
    apply(ns, gang("pair", "0"));
    Eventually.within(90, () -> assertThat(phase(ns, "pair")).isEqualTo(JobPhase.Succeeded));
    BatchJob job = admin.resources(BatchJob.class).inNamespace(ns).withName("pair").get();
    assertThat(job.getStatus().getReplicaNodes()).containsExactlyInAnyOrderElementsOf(NODES);
    List<Pod> pods = admin.pods().inNamespace(ns).withLabel(Labels.JOB, "pair").list().getItems();
    assertThat(pods).hasSize(2);
    Map<String, String> indexByNode =
        pods.stream()
            .collect(
                Collectors.toMap(
                    p -> p.getSpec().getNodeName(), p -> env(p, "OCTOMY_REPLICA_INDEX")));
    List<String> replicaNodes = job.getStatus().getReplicaNodes();
    for (int i = 0; i < replicaNodes.size(); i++) {
      assertThat(indexByNode).containsEntry(replicaNodes.get(i), Integer.toString(i));
    }
    for (Pod p : pods) {
      assertThat(env(p, "OCTOMY_REPLICA_COUNT")).isEqualTo("2");
      assertThat(env(p, "OCTOMY_REPLICA_NODES")).isEqualTo(String.join(",", replicaNodes));
    }
  }

  @Test
  void aGangWhoseReplicaFailsFailsWholeAndItsOtherPodIsStopped() {
    String ns = product.cluster().namespace("pod-gang-fail");
    apply(
        ns,
        gang("broken", null).replace("labels: {}", "labels: {octomy-test-fail-replica-0: 'y'}"));
    Eventually.within(90, () -> assertThat(phase(ns, "broken")).isEqualTo(JobPhase.Failed));
    BatchJob job = admin.resources(BatchJob.class).inNamespace(ns).withName("broken").get();
    assertThat(job.getStatus().getExitCode()).isEqualTo(3);
    // Replica 1 never ended by itself: it is stopped (its Pod deleted) once replica 0 failed.
    Eventually.within(
        60,
        () ->
            assertThat(
                    admin.pods().inNamespace(ns).withLabel(Labels.JOB, "broken").list().getItems())
                .noneMatch(p -> "Running".equals(p.getStatus().getPhase())));
  }

  private static String env(Pod p, String name) {
    return p.getSpec().getContainers().get(0).getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElse(null);
  }

  /**
   * A gang of two, each replica needing a whole node; KWOK ends each Pod with {@code exit}, or
   * keeps it running when that is null.
   */
  private static String gang(String name, String exit) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          replicas: 2
          resources: {requests: {example.com/gang-slots: 1}}
          template:
            metadata: {labels: {%s}}
            spec: {restartPolicy: Never, containers: [{name: main, image: busybox, command: [sh, -c, 'sleep 1']}]}
        """
        .formatted(name, exit == null ? "" : KwokKubelet.EXIT_LABEL + ": '" + exit + "'");
  }

  private static JobPhase phase(String ns, String name) {
    BatchJob j = admin.resources(BatchJob.class).inNamespace(ns).withName(name).get();
    return j == null || j.getStatus() == null ? null : j.getStatus().getPhase();
  }

  private static void apply(String ns, String yaml) {
    KubectlRun.Result r =
        product.cluster().kubectl().runWithInput(yaml, "apply", "-n", ns, "-f", "-");
    assertThat(r.exitCode()).as(r.all()).isZero();
  }
}
