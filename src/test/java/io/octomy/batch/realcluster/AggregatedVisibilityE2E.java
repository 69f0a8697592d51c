package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.controller.aggregated.ServingReplica;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.JobPhase;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The visibility API on a cluster: the chart's APIService, Service and RBAC on the real
 * kube-apiserver, two controller replicas started with the chart's arguments and the tokens their
 * Pods would have, and calls through the API server's aggregator (its front-proxy client
 * certificate, X-Remote-User and X-Remote-Group) from users who are ServiceAccounts with tokens the
 * server minted, through stock kubectl and the kubectl-octomy plugin. Two checks stand in the way
 * of a call: the API server's own (RBAC on the visibility resources, which the chart's -user and
 * -viewer roles grant) and the controller's SubjectAccessReview (list batchjobs in the namespace
 * asked about). alice is bound to octomy-batch-user in one namespace; bob may read pendingjobs
 * everywhere but list BatchJobs in that one namespace only, so the controller's own refusals show.
 *
 * <p>Routing: there is no kube-proxy here, so the chart's ClusterIP Service is replaced by an
 * ExternalName Service of the same name for {@code localhost} (the aggregator resolves an
 * ExternalName Service to that host and the APIService's port; docs/real-cluster.md), and the
 * APIService's port is pointed at the replica under test. Its certificate is checked by the
 * aggregator against the caBundle the serving replica published, for the Service's DNS name. The
 * chart's reservation webhook is reached through the same Service, its port pointed at the same
 * replica: a create stores the finalizer that replica's webhook put on.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AggregatedVisibilityE2E {

  static final String SERVICE = "octomy-batch-visibility";
  static final String API_SERVICE = "v1alpha1.visibility.batch.octomy.io";
  static final String GV = "/apis/visibility.batch.octomy.io/v1alpha1";
  static final String NODE = "visibility-node";
  static final String CPU = "octomy.io/cpu-milli";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static ProductDeployment product;
  private static KubernetesClient admin;
  private static KubectlRun kubectl;
  private static KubectlRun alice;
  private static String aliceToken;
  private static KubectlRun bob;
  private static final Map<String, ProductProcess> controllers = new LinkedHashMap<>();
  private static final Map<String, Integer> ports = new LinkedHashMap<>();
  private static ProductProcess agent;
  private static String nsA;
  private static String nsB;

  @BeforeAll
  static void deploy() throws Exception {
    product = ProductDeployment.get();
    admin = product.cluster().admin();
    kubectl = product.cluster().kubectl();
    product.enableVisibility(true);
    Path policy = product.policyFile();
    agent = AgentReplica.agent(product, policy, NODE, Map.of(CPU, 1000L));
    for (String pod : List.of("octomy-batch-controller-v0", "octomy-batch-controller-v1")) {
      int port = freePort();
      ports.put(pod, port);
      controllers.put(
          pod,
          ControllerReplica.controller(
              product,
              policy,
              pod,
              "--visibility-port",
              String.valueOf(port),
              "--visibility-service",
              SERVICE));
    }
    Eventually.within(90, () -> assertThat(controllers.keySet()).contains(leaseHolder()));
    routeTo(leaseHolder());
    RealCluster c = product.cluster();
    nsA = c.namespace("visibility-a");
    nsB = c.namespace("visibility-b");
    // Before any job of this class exists (on a cluster with no BatchJob at all, a leader used to
    // make no pass, so it never published its caBundle): the queue answers, empty.
    Eventually.within(60, () -> assertThat(available()).startsWith("True"));
    Eventually.within(
        30,
        () -> {
          KubectlRun.Result empty =
              kubectl.run("get", "--raw", GV + "/namespaces/" + nsA + "/pendingjobs");
          assertThat(empty.exitCode()).as(empty.all()).isZero();
          try {
            assertThat(JSON.readTree(empty.out()).path("items")).as(empty.out()).isEmpty();
          } catch (IOException e) {
            throw new AssertionError(empty.out(), e);
          }
        });
    apply(nsA, job("running", 1000, "echo started-running; echo second-line; sleep 300"));
    apply(nsA, job("second", 1000, "true"));
    apply(nsA, job("third", 600, "true"));
    apply(nsB, job("theirs", 1000, "true"));
    Eventually.within(
        60,
        () ->
            assertThat(admin.resources(BatchJob.class).inNamespace(nsA).withName("running").get())
                .extracting(j -> j.getStatus() == null ? null : j.getStatus().getPhase())
                .isIn(JobPhase.Admitted, JobPhase.Running));
    aliceToken = userWhoMayListIn(nsA, "alice");
    String bobToken = userWhoMayListIn(nsA, "bob");
    // Not with kubectl create clusterrole: it looks the resource up in discovery, which lists
    // the group only once the APIService is routed.
    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("pendingjobs-reader-" + nsA)
                .endMetadata()
                .addNewRule()
                .withApiGroups("visibility.batch.octomy.io")
                .withResources("pendingjobs")
                .withVerbs("get", "list")
                .endRule()
                .build())
        .create();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("pendingjobs-reader-" + nsA)
                .endMetadata()
                .withNewRoleRef(
                    "rbac.authorization.k8s.io", "ClusterRole", "pendingjobs-reader-" + nsA)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("bob")
                .withNamespace(nsA)
                .endSubject()
                .build())
        .create();
    Path plugins = Files.createDirectories(product.dir().resolve("plugins"));
    Files.copy(
        Path.of("target", "kubectl-octomy"),
        plugins.resolve("kubectl-octomy"),
        StandardCopyOption.REPLACE_EXISTING);
    alice =
        new KubectlRun(
            product.tokenKubeconfig("alice", "alice", aliceToken, nsA),
            c.dir().resolve("alice-home"),
            plugins);
    bob =
        new KubectlRun(
            product.tokenKubeconfig("bob", "bob", bobToken, nsA),
            c.dir().resolve("bob-home"),
            plugins);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      for (String ns : new String[] {nsA, nsB}) {
        if (ns != null) {
          admin.resources(BatchJob.class).inNamespace(ns).delete();
          admin.namespaces().withName(ns).delete();
        }
      }
      if (agent != null && nsA != null) {
        // The agent stops the job's process and the controller lets the job go: nothing is left
        // running on this machine.
        Eventually.within(
            60,
            () ->
                assertThat(
                        admin.resources(BatchJob.class).inNamespace(nsA).withName("running").get())
                    .isNull());
      }
    } finally {
      for (ProductProcess p : controllers.values()) {
        p.close();
      }
      if (agent != null) {
        agent.close();
      }
      if (admin != null) {
        admin.resources(BatchNode.class).withName(NODE).delete();
        if (nsA != null) {
          kubectl.run("delete", "clusterrolebinding,clusterrole", "pendingjobs-reader-" + nsA);
        }
        // An APIService that no replica answers would make every later kubectl discovery warn.
        product.enableVisibility(false);
      }
    }
  }

  @Test
  @Order(1)
  void theChartRegistersTheApiServiceAndTheAggregatorReachesTheServingReplica() throws Exception {
    Eventually.within(60, () -> assertThat(available()).startsWith("True"));
    JsonNode resources = rawOk(kubectl, GV);
    assertThat(resources.path("resources").findValuesAsText("name"))
        .contains("pendingjobs", "fitreviews");
    KubectlRun.Result table =
        kubectl.run("get", "pendingjobs.visibility.batch.octomy.io", "-n", nsA);
    assertThat(table.exitCode()).as(table.all()).isZero();
    assertThat(table.out()).contains("second").contains("WaitingForCapacity");
  }

  @Test
  @Order(2)
  void aUserSeesTheQueueOfANamespaceWhereTheyMayListBatchJobs() throws Exception {
    JsonNode queue = rawOk(alice, GV + "/namespaces/" + nsA + "/pendingjobs");
    assertThat(queue.path("items").findValuesAsText("name")).containsExactly("second", "third");
    assertThat(queue.path("items").get(0).path("namespacePosition").asInt()).isEqualTo(1);

    KubectlRun.Result q = alice.run("octomy", "queue");
    assertThat(q.exitCode()).as(q.all()).isZero();
    assertThat(q.out().lines().toList().get(1))
        .matches("\\d+\\s+second\\s+\\d+\\s+Guaranteed\\s+WaitingForCapacity\\s+.+");

    KubectlRun.Result why = alice.run("octomy", "why", "second");
    assertThat(why.exitCode()).as(why.all()).isZero();
    assertThat(why.out()).contains("WaitingForCapacity").contains("Remedy: ");

    Path manifest = product.dir().resolve("fit-small.yaml");
    Files.writeString(manifest, job("small", 100, "true"));
    KubectlRun.Result fit = alice.run("octomy", "fit", "-f", manifest.toString());
    assertThat(fit.exitCode()).as(fit.all()).isZero();
    assertThat(fit.out()).startsWith("batchjob small would ");
    assertThat(admin.resources(BatchJob.class).inNamespace(nsA).withName("small").get()).isNull();
  }

  @Test
  @Order(3)
  void theSameUserIsRefusedANamespaceWhereTheyMayNot() throws Exception {
    String pathB = GV + "/namespaces/" + nsB + "/pendingjobs";
    // The API server refuses alice first: she may not read pendingjobs there.
    KubectlRun.Result byApiServer = alice.run("get", "--raw", pathB);
    assertThat(byApiServer.exitCode()).isNotZero();
    assertThat(byApiServer.err())
        .contains("Forbidden")
        .contains("cannot list resource \"pendingjobs\"");
    KubectlRun.Result queue = alice.run("octomy", "queue", "-n", nsB);
    assertThat(queue.exitCode()).isEqualTo(1);
    assertThat(queue.err()).contains("Forbidden");
    // bob may read pendingjobs everywhere, so the controller's own review refuses him.
    String refusal =
        "you may not list batchjobs in namespace " + nsB + ", so you may not see its queue either.";
    KubectlRun.Result byController = bob.run("get", "--raw", pathB);
    assertThat(byController.exitCode()).isNotZero();
    assertThat(byController.err()).contains("Forbidden").contains(refusal);
    KubectlRun.Result why = bob.run("octomy", "why", "theirs", "-n", nsB);
    assertThat(why.exitCode()).isEqualTo(1);
    assertThat(why.err()).contains(refusal);
    JsonNode own = rawOk(bob, GV + "/namespaces/" + nsA + "/pendingjobs");
    assertThat(own.path("items").findValuesAsText("name")).containsExactly("second", "third");
  }

  @Test
  @Order(4)
  void theClusterWideQueueNeedsTheClusterWidePermission() throws Exception {
    KubectlRun.Result byApiServer = alice.run("get", "--raw", GV + "/pendingjobs");
    assertThat(byApiServer.exitCode()).isNotZero();
    assertThat(byApiServer.err()).contains("Forbidden").contains("at the cluster scope");
    String refusal =
        "the queue of every namespace needs permission to list batchjobs.batch.octomy.io in all"
            + " namespaces; ask for one namespace you may list: kubectl octomy queue -n NAMESPACE.";
    KubectlRun.Result byController = bob.run("get", "--raw", GV + "/pendingjobs");
    assertThat(byController.exitCode()).isNotZero();
    assertThat(byController.err()).contains("Forbidden").contains(refusal);
    KubectlRun.Result all = bob.run("octomy", "queue", "-A");
    assertThat(all.exitCode()).isEqualTo(1);
    assertThat(all.err()).contains(refusal);
    JsonNode everything = rawOk(kubectl, GV + "/pendingjobs");
    assertThat(everything.path("items").findValuesAsText("name"))
        .contains("second", "third", "theirs");
  }

  @Test
  @Order(5)
  void aCallPastTheApiServerNeedsItsProxyCertificateOrAToken() throws Exception {
    int port = ports.get(leaseHolder());
    String serving = caBundle();
    Path pki = product.cluster().dir().resolve("pki");
    String path = GV + "/namespaces/" + nsA + "/pendingjobs";
    Map<String, String> asAdmin =
        Map.of("X-Remote-User", "mallory", "X-Remote-Group", "system:masters");

    assertThat(DirectCall.get(port, path, serving, null, null, asAdmin).status()).isEqualTo(401);
    DirectCall.Reply otherCa =
        DirectCall.get(
            port, path, serving, pki.resolve("admin.crt"), pki.resolve("admin.key"), asAdmin);
    assertThat(otherCa.status()).as(otherCa.body()).isIn(0, 401);
    DirectCall.Reply proxied =
        DirectCall.get(
            port,
            path,
            serving,
            pki.resolve("front-proxy-client.crt"),
            pki.resolve("front-proxy-client.key"),
            Map.of("X-Remote-User", "system:serviceaccount:" + nsA + ":alice"));
    assertThat(proxied.status()).as(proxied.body()).isEqualTo(200);
    Map<String, String> bearer = Map.of("Authorization", "Bearer " + aliceToken);
    assertThat(DirectCall.get(port, path, serving, null, null, bearer).status()).isEqualTo(200);
    String theirs = GV + "/namespaces/" + nsB + "/pendingjobs";
    assertThat(DirectCall.get(port, theirs, serving, null, null, bearer).status()).isEqualTo(403);
    Map<String, String> forged = Map.of("Authorization", "Bearer not-a-token");
    assertThat(DirectCall.get(port, path, serving, null, null, forged).status()).isEqualTo(401);
  }

  @Test
  @Order(6)
  void onlyTheDecidingReplicaAnswersAndTheStandbyTakesOverWhenItDies() throws Exception {
    String leader = leaseHolder();
    String standby = controllers.keySet().stream().filter(p -> !p.equals(leader)).findFirst().get();
    Eventually.within(30, () -> assertThat(label(leader)).isEqualTo("serving"));
    assertThat(label(standby)).isNull();
    Path pki = product.cluster().dir().resolve("pki");
    DirectCall.Reply refused =
        DirectCall.get(
            ports.get(standby),
            GV + "/namespaces/" + nsA + "/pendingjobs",
            null,
            pki.resolve("front-proxy-client.crt"),
            pki.resolve("front-proxy-client.key"),
            Map.of("X-Remote-User", "admin", "X-Remote-Group", "system:masters"));
    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.body()).contains("not the active replica");

    controllers.get(leader).kill9();
    Eventually.within(60, () -> assertThat(leaseHolder()).isEqualTo(standby));
    Eventually.within(30, () -> assertThat(label(standby)).isEqualTo("serving"));
    routeTo(standby);
    Eventually.within(
        60,
        () -> {
          KubectlRun.Result q = alice.run("octomy", "queue");
          assertThat(q.exitCode()).as(q.all()).isZero();
          assertThat(q.out()).contains("second").contains("third");
        });
  }

  @Test
  @Order(7)
  void aNewJobGetsTheReservationFinalizerFromTheServingReplicasWebhook() throws Exception {
    // The replica that took over publishes its certificate for the webhook as for the APIService.
    Eventually.within(30, () -> assertThat(webhookCaBundle()).isEqualTo(caBundle()));
    Path manifest = product.dir().resolve("webhooked.yaml");
    Files.writeString(manifest, job("webhooked", 100, "true"));

    KubectlRun.Result dryRun =
        kubectl.run(
            "create", "-n", nsA, "-f", manifest.toString(), "--dry-run=server", "-o", "json");
    assertThat(dryRun.exitCode()).as(dryRun.all()).isZero();
    assertThat(JSON.readTree(dryRun.out()).at("/metadata/finalizers").toString())
        .isEqualTo("[\"" + Finalizers.RESERVATION + "\"]");
    KubectlRun.Result created =
        kubectl.run("create", "-n", nsA, "-f", manifest.toString(), "-o", "json");
    assertThat(created.exitCode()).as(created.all()).isZero();
    JsonNode job = JSON.readTree(created.out());
    assertThat(job.at("/metadata/finalizers").toString())
        .as("the finalizer is on the job as the create stored it")
        .isEqualTo("[\"" + Finalizers.RESERVATION + "\"]");
    // A GitOps tool's server-side apply creates with the finalizer too, and its next apply of
    // the same manifest, which does not list it, leaves it on.
    Path applied = product.dir().resolve("applied.yaml");
    Files.writeString(applied, job("applied", 100, "true"));
    for (int i = 0; i < 2; i++) {
      KubectlRun.Result apply =
          kubectl.run(
              "apply",
              "--server-side",
              "--field-manager=gitops",
              "-n",
              nsA,
              "-f",
              applied.toString());
      assertThat(apply.exitCode()).as(apply.all()).isZero();
      assertThat(
              admin
                  .resources(BatchJob.class)
                  .inNamespace(nsA)
                  .withName("applied")
                  .get()
                  .getMetadata()
                  .getFinalizers())
          .as("after apply %d", i + 1)
          .containsExactly(Finalizers.RESERVATION);
    }
    // The controller decides it without a write of its own to the job's metadata.
    Eventually.within(
        30,
        () ->
            assertThat(admin.resources(BatchJob.class).inNamespace(nsA).withName("webhooked").get())
                .extracting(j -> j.getStatus() == null ? null : j.getStatus().getReason())
                .isNotNull());
    BatchJob decided = admin.resources(BatchJob.class).inNamespace(nsA).withName("webhooked").get();
    assertThat(decided.getMetadata().getManagedFields())
        .filteredOn(m -> m.getSubresource() == null || m.getSubresource().isEmpty())
        .extracting(m -> m.getManager())
        .doesNotContain("octomy-batch-controller");
  }

  @Test
  @Order(8)
  void logsOfAProcessJobAreReadFromItsNodesAgentAsItsStartedEventSays() throws Exception {
    // Read by the replica that took over, from the agent at the address its BatchNode publishes.
    Eventually.within(
        60,
        () -> {
          KubectlRun.Result logs = alice.run("octomy", "logs", "running");
          assertThat(logs.exitCode()).as(logs.all()).isZero();
          assertThat(logs.out()).isEqualTo("started-running\nsecond-line\n");
        });
    KubectlRun.Result tail = alice.run("octomy", "logs", "running", "--tail", "1");
    assertThat(tail.exitCode()).as(tail.all()).isZero();
    assertThat(tail.out()).isEqualTo("second-line\n");
    KubectlRun.Result events =
        kubectl.run(
            "get",
            "events",
            "-n",
            nsA,
            "--field-selector",
            "involvedObject.name=running,reason=Started",
            "-o",
            "jsonpath={.items[*].message}");
    assertThat(events.exitCode()).as(events.all()).isZero();
    assertThat(events.out())
        .contains("(kubectl octomy logs running).")
        .doesNotContain("read it there");
    // Another namespace's job: refused before any agent is asked.
    KubectlRun.Result theirs = alice.run("octomy", "logs", "theirs", "-n", nsB);
    assertThat(theirs.exitCode()).isEqualTo(1);
    assertThat(theirs.err()).contains("Forbidden").doesNotContain("started");
  }

  // --- set-up

  private static String webhookCaBundle() {
    GenericKubernetesResource w =
        admin
            .genericKubernetesResources(
                "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")
            .withName(ServingReplica.WEBHOOK_CONFIGURATION)
            .get();
    String b64 = JSON.valueToTree(w).at("/webhooks/0/clientConfig/caBundle").asText();
    return new String(Base64.getDecoder().decode(b64), StandardCharsets.US_ASCII);
  }

  /**
   * Points the APIService and the reservation webhook at the replica of {@code pod}, through an
   * ExternalName Service.
   */
  private static void routeTo(String pod) throws InterruptedException {
    VisibilityRoute.to(admin, ports.get(pod));
  }

  /** A ServiceAccount in {@code ns} bound to the chart's -user role there; its token. */
  private static String userWhoMayListIn(String ns, String name) {
    admin
        .serviceAccounts()
        .inNamespace(ns)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    KubectlRun.Result bound =
        kubectl.run(
            "create",
            "rolebinding",
            name + "-user",
            "-n",
            ns,
            "--clusterrole=octomy-batch-user",
            "--serviceaccount=" + ns + ":" + name);
    assertThat(bound.exitCode()).as(bound.all()).isZero();
    return admin
        .serviceAccounts()
        .inNamespace(ns)
        .withName(name)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  private static String job(String name, long cpu, String command) {
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
              restartPolicy: Never
              containers:
              - {name: main, image: busybox:1.36, command: [sh, -c, '%s']}
        """
        .formatted(name, cpu, cpu, command);
  }

  private static void apply(String ns, String manifest) {
    KubectlRun.Result r = kubectl.runWithInput(manifest, "create", "-n", ns, "-f", "-");
    assertThat(r.exitCode()).as(r.all()).isZero();
  }

  private static JsonNode rawOk(KubectlRun k, String path) throws Exception {
    KubectlRun.Result r = k.run("get", "--raw", path);
    assertThat(r.exitCode()).as(r.all()).isZero();
    return JSON.readTree(r.out());
  }

  private static String available() {
    GenericKubernetesResource s =
        admin
            .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
            .withName(API_SERVICE)
            .get();
    JsonNode status = JSON.valueToTree(s).path("status").path("conditions");
    for (JsonNode c : status) {
      if (c.path("type").asText().equals("Available")) {
        return c.path("status").asText() + " " + c.path("message").asText();
      }
    }
    return "no Available condition";
  }

  private static String caBundle() {
    GenericKubernetesResource s =
        admin
            .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
            .withName(API_SERVICE)
            .get();
    String b64 = JSON.valueToTree(s).path("spec").path("caBundle").asText();
    return new String(Base64.getDecoder().decode(b64), StandardCharsets.US_ASCII);
  }

  private static String label(String pod) {
    var p = admin.pods().inNamespace(ProductDeployment.NS).withName(pod).get();
    return p.getMetadata().getLabels() == null
        ? null
        : p.getMetadata().getLabels().get("batch.octomy.io/visibility");
  }

  private static String leaseHolder() {
    Lease l =
        admin
            .resources(Lease.class)
            .inNamespace(ProductDeployment.NS)
            .withName(ProductDeployment.LEASE)
            .get();
    return l == null ? null : l.getSpec().getHolderIdentity();
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
