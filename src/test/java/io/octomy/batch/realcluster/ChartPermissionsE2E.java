package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.NodeMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the chart's permissions let each identity do on the real server: the agent's
 * ValidatingAdmissionPolicy (an agent writes only its own node's BatchNode), and the user-facing
 * -user and -viewer ClusterRoles, bound directly and through the built-in edit and view roles they
 * aggregate into. People are impersonated with kubectl --as, as an administrator checks a role.
 */
class ChartPermissionsE2E {

  @Test
  void anAgentMayWriteOnlyItsOwnNodesBatchNodeAndTheSwitchLetsItThrough() throws Exception {
    ProductDeployment product = ProductDeployment.get();
    KubernetesClient admin = product.cluster().admin();
    Path kubeconfig = product.agentKubeconfig("octomy-batch-agent-vap-a", "vap-node-a");
    try (KubernetesClient agentA =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
            .build()) {
      BatchNode own = agentA.resources(BatchNode.class).resource(node("vap-node-a")).create();
      own.setStatus(new BatchNodeStatus());
      own.getStatus().setCapacity(Map.of("octomy.io/cpu-milli", 1000L));
      agentA.resources(BatchNode.class).resource(own).updateStatus();

      KubernetesClientException create =
          catchApi(() -> agentA.resources(BatchNode.class).resource(node("vap-node-b")).create());
      assertThat(create.getCode()).isEqualTo(403);
      assertThat(create.getMessage())
          .contains("an agent may write only the BatchNode of its own node, not vap-node-b");

      BatchNode other = admin.resources(BatchNode.class).resource(node("vap-node-b")).create();
      other.setStatus(new BatchNodeStatus());
      other.getStatus().setCapacity(Map.of("octomy.io/cpu-milli", 1L));
      KubernetesClientException status =
          catchApi(() -> agentA.resources(BatchNode.class).resource(other).updateStatus());
      assertThat(status.getCode()).isEqualTo(403);
      assertThat(status.getMessage()).contains("not vap-node-b");
      assertThat(admin.resources(BatchNode.class).withName("vap-node-b").get().getStatus())
          .isNull();

      product.restrictAgentsToOwnNode(false);
      try {
        // The API server drops a deleted policy from its cache within a second or two.
        Eventually.within(30, () -> patchCapacity(agentA, "vap-node-b", 2));
        assertThat(
                admin
                    .resources(BatchNode.class)
                    .withName("vap-node-b")
                    .get()
                    .getStatus()
                    .getCapacity())
            .containsEntry("octomy.io/cpu-milli", 2L);
      } finally {
        product.restrictAgentsToOwnNode(true);
      }
      Eventually.within(
          30,
          () ->
              assertThat(catchApi(() -> patchCapacity(agentA, "vap-node-b", 3)).getMessage())
                  .contains(
                      "an agent may write only the BatchNode of its own node, not vap-node-b"));
    }
  }

  /** A merge patch of a BatchNode's status: no resourceVersion, so only admission can refuse it. */
  private static void patchCapacity(KubernetesClient client, String node, long cpuMilli) {
    client
        .resources(BatchNode.class)
        .withName(node)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"capacity\":{\"octomy.io/cpu-milli\":" + cpuMilli + "}}}");
  }

  /**
   * kube-controller-manager type-checks each policy's CEL against the schemas of the kinds it
   * matches and writes what it finds into the policy's status: the chart's policies have nothing.
   */
  @Test
  void theChartsPoliciesTypeCheckWithoutWarnings() throws Exception {
    KubernetesClient admin = ProductDeployment.get().cluster().admin();
    for (String name : List.of("octomy-batch-agent-own-node", "octomy-batch-agent-token-kept")) {
      Eventually.within(
          60,
          () -> {
            Map<String, Object> status =
                admin
                    .genericKubernetesResources(
                        "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy")
                    .withName(name)
                    .get()
                    .get("status");
            assertThat(status).as(name).containsKey("typeChecking");
            assertThat(String.valueOf(status.get("typeChecking")))
                .as(name)
                .doesNotContain("expressionWarnings");
          });
    }
  }

  /**
   * The agent's role reads BatchJobs and writes none: every job write is refused by RBAC. Should a
   * role ever grant more, the policy still keeps an agent to the jobs on its own node; a role
   * granting job status writes is bound here, for this test only, to show it.
   */
  @Test
  void anAgentMayWriteNoJobAndWithAWiderRoleOnlyTheJobsOnItsNode() throws Exception {
    ProductDeployment product = ProductDeployment.get();
    RealCluster c = product.cluster();
    KubernetesClient admin = c.admin();
    String ns = c.namespace("vap-jobs");
    BatchJob onA = jobOn(admin, ns, "on-a", "vap-node-a");
    BatchJob onB = jobOn(admin, ns, "on-b", "vap-node-b");
    Path kubeconfig = product.agentKubeconfig("octomy-batch-agent-vap-a", "vap-node-a");
    try (KubernetesClient agentA =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
            .build()) {
      KubernetesClientException rbac = catchApi(() -> markStatus(agentA, onA));
      assertThat(rbac.getCode()).isEqualTo(403);
      assertThat(rbac.getMessage()).contains("cannot patch resource \"batchjobs/status\"");

      String widened = "octomy-batch-agent-widened-for-test";
      admin
          .rbac()
          .clusterRoles()
          .resource(
              new ClusterRoleBuilder()
                  .withNewMetadata()
                  .withName(widened)
                  .endMetadata()
                  .addNewRule()
                  .withApiGroups("batch.octomy.io")
                  .withResources("batchjobs/status")
                  .withVerbs("patch")
                  .endRule()
                  .build())
          .serverSideApply();
      admin
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(widened)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", widened)
                  .addNewSubject()
                  .withKind("ServiceAccount")
                  .withName(ProductDeployment.AGENT_SA)
                  .withNamespace(ProductDeployment.NS)
                  .endSubject()
                  .build())
          .serverSideApply();
      try {
        Eventually.within(30, () -> markStatus(agentA, onA));
        KubernetesClientException other = catchApi(() -> markStatus(agentA, onB));
        assertThat(other.getCode()).isEqualTo(403);
        assertThat(other.getMessage())
            .contains("an agent may write only the BatchJobs on its own node, not " + ns + "/on-b");
        assertThat(
                admin
                    .resources(BatchJob.class)
                    .inNamespace(ns)
                    .withName("on-b")
                    .get()
                    .getStatus()
                    .getMessage())
            .isNull();
      } finally {
        admin.rbac().clusterRoleBindings().withName(widened).delete();
        admin.rbac().clusterRoles().withName(widened).delete();
      }
    }
  }

  /**
   * The controller makes each job's Pod from the job's template; a job in the release namespace
   * naming the agent's service account would run with the agent's token. The controller's
   * credentials may not create such a Pod; another account's Pod is created as before.
   */
  @Test
  void theControllerMayNotCreateAPodThatRunsAsTheAgent() throws Exception {
    ProductDeployment product = ProductDeployment.get();
    KubernetesClient admin = product.cluster().admin();
    PodTemplateSpec template =
        admin
            .apps()
            .daemonSets()
            .inNamespace(ProductDeployment.NS)
            .withName(ProductDeployment.RELEASE + "-agent")
            .get()
            .getSpec()
            .getTemplate();
    assertThat(template.getSpec().getServiceAccountName()).isEqualTo(ProductDeployment.AGENT_SA);
    Path kubeconfig = product.controllerKubeconfig("octomy-batch-controller-token-kept");
    try (KubernetesClient controller =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
            .build()) {
      KubernetesClientException refused =
          catchApi(() -> controller.pods().resource(jobPod("as-agent", template)).create());
      assertThat(refused.getCode()).isEqualTo(403);
      assertThat(refused.getMessage())
          .contains("a job's Pod may not run as the agent's service account octomy-batch-agent");

      Pod ownAccount = jobPod("as-default", template);
      ownAccount.getSpec().setServiceAccountName("default");
      ownAccount.getSpec().setServiceAccount("default");
      controller.pods().resource(ownAccount).create();
      admin.pods().inNamespace(ProductDeployment.NS).withName("as-default").delete();
    }
  }

  private static Pod jobPod(String name, PodTemplateSpec template) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ProductDeployment.NS)
        .endMetadata()
        .withSpec(template.getSpec())
        .build();
  }

  /**
   * A BatchJob whose status says it was admitted to {@code node}, written as the controller does.
   */
  private static BatchJob jobOn(KubernetesClient admin, String ns, String name, String node)
      throws Exception {
    KubectlRun.Result created =
        RealCluster.get().kubectl().runWithInput(job(name), "-n", ns, "create", "-f", "-");
    ok(created);
    return admin
        .resources(BatchJob.class)
        .inNamespace(ns)
        .withName(name)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"phase\":\"Admitted\",\"node\":\"" + node + "\"}}");
  }

  private static void markStatus(KubernetesClient client, BatchJob job) {
    client
        .resources(BatchJob.class)
        .inNamespace(job.getMetadata().getNamespace())
        .withName(job.getMetadata().getName())
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"message\":\"mine\"}}");
  }

  @Test
  void aUserBoundToTheUserRoleSubmitsJobsInTheirNamespaceAndNothingElse() throws Exception {
    ProductDeployment.get();
    RealCluster c = RealCluster.get();
    KubectlRun kubectl = c.kubectl();
    String ns = c.namespace("team-a");
    String elsewhere = c.namespace("team-b");
    ok(
        kubectl.run(
            "create",
            "rolebinding",
            "alice-user",
            "-n",
            ns,
            "--clusterrole=octomy-batch-user",
            "--user=alice"));

    ok(kubectl.runWithInput(job("alice-1"), "--as=alice", "-n", ns, "create", "-f", "-"));
    ok(kubectl.run("--as=alice", "-n", ns, "get", "bj", "alice-1"));
    ok(kubectl.run("--as=alice", "-n", ns, "delete", "bj", "alice-1"));
    forbidden(
        kubectl.runWithInput(job("alice-2"), "--as=alice", "-n", elsewhere, "create", "-f", "-"));
    ok(kubectl.runWithInput(job("alice-3"), "--as=alice", "-n", ns, "create", "-f", "-"));
    forbidden(
        kubectl.run(
            "--as=alice",
            "-n",
            ns,
            "patch",
            "bj",
            "alice-3",
            "--subresource=status",
            "--type=merge",
            "-p",
            "{\"status\":{\"phase\":\"Succeeded\"}}"));
    forbidden(kubectl.runWithInput(nodeYaml("alice-node"), "--as=alice", "create", "-f", "-"));
    forbidden(kubectl.run("--as=alice", "get", "bn"));
    forbidden(kubectl.run("--as=alice", "-n", ns, "get", "pods"));
  }

  @Test
  void aUserBoundToTheUserRoleSeesTheEventsOfTheirJobsInTheirNamespaceOnly() throws Exception {
    ProductDeployment.get();
    RealCluster c = RealCluster.get();
    KubectlRun kubectl = c.kubectl();
    String ns = c.namespace("team-d");
    String elsewhere = c.namespace("team-e");
    ok(
        kubectl.run(
            "create",
            "rolebinding",
            "dana-user",
            "-n",
            ns,
            "--clusterrole=octomy-batch-user",
            "--user=dana"));
    ok(kubectl.runWithInput(job("dana-1"), "--as=dana", "-n", ns, "create", "-f", "-"));
    BatchJob created = c.admin().resources(BatchJob.class).inNamespace(ns).withName("dana-1").get();
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    // What the controller writes when it refuses a job, written here as the controller would.
    c.admin()
        .v1()
        .events()
        .inNamespace(ns)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName("dana-1.refused")
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion("batch.octomy.io/v1alpha1")
                .withKind("BatchJob")
                .withNamespace(ns)
                .withName("dana-1")
                .withUid(created.getMetadata().getUid())
                .endInvolvedObject()
                .withType("Warning")
                .withReason("Rejected")
                .withMessage("rejected: the job waits on itself.")
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .withNewSource()
                .withComponent("octomy-batch-controller")
                .endSource()
                .build())
        .create();

    KubectlRun.Result describe = kubectl.run("--as=dana", "-n", ns, "describe", "bj", "dana-1");
    ok(describe);
    assertThat(describe.out())
        .as(describe.all())
        .contains("Rejected", "rejected: the job waits on itself.")
        .doesNotContainPattern("Events:\\s*<none>");
    for (String verb : List.of("get", "list", "watch")) {
      assertThat(kubectl.run("--as=dana", "-n", ns, "auth", "can-i", verb, "events").out())
          .as("%s events in %s", verb, ns)
          .isEqualToIgnoringWhitespace("yes");
    }
    assertThat(kubectl.run("--as=dana", "-n", elsewhere, "auth", "can-i", "list", "events").out())
        .isEqualToIgnoringWhitespace("no");
    assertThat(kubectl.run("--as=dana", "-n", ns, "auth", "can-i", "create", "events").out())
        .isEqualToIgnoringWhitespace("no");
  }

  @Test
  void theUserAndViewerRolesAggregateIntoEditAndView() throws Exception {
    ProductDeployment.get();
    RealCluster c = RealCluster.get();
    KubectlRun kubectl = c.kubectl();
    String ns = c.namespace("team-c");
    ok(
        kubectl.run(
            "create", "rolebinding", "erin-edit", "-n", ns, "--clusterrole=edit", "--user=erin"));
    ok(
        kubectl.run(
            "create", "rolebinding", "vic-view", "-n", ns, "--clusterrole=view", "--user=vic"));
    ok(
        kubectl.run(
            "create",
            "rolebinding",
            "val-viewer",
            "-n",
            ns,
            "--clusterrole=octomy-batch-viewer",
            "--user=val"));
    // The aggregation controller fills edit and view from the chart's labelled roles.
    Eventually.within(
        30,
        () -> ok(kubectl.runWithInput(job("erin-1"), "--as=erin", "-n", ns, "create", "-f", "-")));
    Eventually.within(30, () -> ok(kubectl.run("--as=vic", "-n", ns, "get", "bj", "erin-1")));
    forbidden(kubectl.runWithInput(job("vic-1"), "--as=vic", "-n", ns, "create", "-f", "-"));
    ok(kubectl.run("--as=val", "-n", ns, "get", "bj", "erin-1", "-o", "wide"));
    forbidden(kubectl.run("--as=val", "-n", ns, "delete", "bj", "erin-1"));
  }

  private static BatchNode node(String name) {
    BatchNode n = new BatchNode();
    n.getMetadata().setName(name);
    BatchNodeSpec spec = new BatchNodeSpec();
    spec.setMode(NodeMode.Drone);
    spec.setExecutor(Executor.Process);
    n.setSpec(spec);
    return n;
  }

  static String job(String name) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          resources: {requests: {octomy.io/cpu-milli: 100}}
          template: {spec: {restartPolicy: Never, containers: [{name: main, image: busybox, command: [sh, -c, 'true']}]}}
        """
        .formatted(name);
  }

  /**
   * BatchQueues are cluster-scoped and shared: every authenticated user reads them (the chart's
   * -queue-reader binding), and only cluster administrators write them; a user who may edit a whole
   * namespace may not create, edit or set the status of one.
   */
  @Test
  void everyUserReadsQueuesAndOnlyClusterAdministratorsWriteThem() throws Exception {
    ProductDeployment.get();
    RealCluster c = RealCluster.get();
    KubectlRun kubectl = c.kubectl();
    String ns = c.namespace("queues");
    ok(
        kubectl.runWithInput(
            "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchQueue\nmetadata: {name: perm-q}\n"
                + "spec: {namespaces: ["
                + ns
                + "], weight: 2}\n",
            "apply",
            "-f",
            "-"));
    ok(
        kubectl.run(
            "create", "rolebinding", "zoe-edit", "-n", ns, "--clusterrole=edit", "--user=zoe"));

    ok(kubectl.run("--as=nobody-in-particular", "get", "bq"));
    ok(kubectl.run("--as=zoe", "get", "bq", "perm-q", "-o", "wide"));
    forbidden(
        kubectl.runWithInput(
            "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchQueue\nmetadata: {name: zoe-q}\n"
                + "spec: {namespaces: ["
                + ns
                + "]}\n",
            "--as=zoe",
            "create",
            "-f",
            "-"));
    forbidden(
        kubectl.run(
            "--as=zoe",
            "patch",
            "bq",
            "perm-q",
            "--type=merge",
            "-p",
            "{\"spec\":{\"weight\":9}}"));
    forbidden(
        kubectl.run(
            "--as=zoe",
            "patch",
            "bq",
            "perm-q",
            "--subresource=status",
            "--type=merge",
            "-p",
            "{\"status\":{\"pending\":0}}"));
    forbidden(kubectl.run("--as=zoe", "delete", "bq", "perm-q"));
  }

  private static String nodeYaml(String name) {
    return "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchNode\nmetadata: {name: "
        + name
        + "}\nspec: {mode: Drone}\n";
  }

  @Test
  void aControllerOutsideTheClusterLeasesWhereItsAccountMayOrSaysWhere() throws Exception {
    ProductDeployment product = ProductDeployment.get();
    Path kubeconfig = product.controllerKubeconfig("octomy-batch-controller-outside");
    Path policy = product.policyFile();
    try (ProductProcess wrong =
        ProductProcess.start(
            product.dir().resolve("outside-default-" + System.nanoTime() + ".log"),
            Map.of(),
            "controller",
            "--kubeconfig",
            kubeconfig.toString(),
            "--policy",
            policy.toString(),
            "--lease-namespace",
            "default",
            "--metrics-port",
            "-1")) {
      Eventually.within(60, () -> assertThat(wrong.alive()).isFalse());
      assertThat(wrong.exitCode()).as(wrong.tail()).isEqualTo(1);
      assertThat(wrong.output())
          .contains("may not hold a Lease in namespace default", "--lease-namespace")
          .doesNotContain("\tat ");
    }
    // No --lease-namespace and no POD_NAMESPACE, as a newcomer starts it: the chart's namespace.
    try (ProductProcess outside =
        ProductProcess.start(
            product.dir().resolve("outside-" + System.nanoTime() + ".log"),
            Map.of(),
            "controller",
            "--kubeconfig",
            kubeconfig.toString(),
            "--policy",
            policy.toString(),
            "--metrics-port",
            "-1")) {
      outside.awaitLine("octomy-batch controller watching", java.time.Duration.ofSeconds(90));
      assertThat(outside.alive()).as(outside.tail()).isTrue();
    }
  }

  private static void ok(KubectlRun.Result r) {
    assertThat(r.exitCode()).as(r.all()).isZero();
  }

  private static void forbidden(KubectlRun.Result r) {
    assertThat(r.exitCode()).as(r.all()).isNotZero();
    assertThat(r.err()).as(r.all()).containsIgnoringCase("forbidden");
  }

  private static KubernetesClientException catchApi(Runnable call) {
    try {
      call.run();
    } catch (KubernetesClientException e) {
      return e;
    }
    throw new AssertionError("the server accepted it");
  }
}
