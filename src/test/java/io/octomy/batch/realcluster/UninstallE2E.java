package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An uninstall finishes with jobs waiting and running: {@code kubectl delete -k manifests/}, and
 * {@code helm uninstall} followed by {@code kubectl delete bj --all}, each within 60 s, with no
 * object left Terminating. The controller and a Process agent run as processes with tokens of the
 * product's own ServiceAccounts (the agent's its node's own, written by {@code kubectl octomy
 * kubeconfig}, as the agent policy on by default wants), so an uninstall takes their credentials
 * away as it would in a Pod. On a control plane of its own: it deletes what the other tests of the
 * tier share.
 */
class UninstallE2E {

  private static final String NS = ProductDeployment.NS;
  private static final String CONTROLLER = "octomy-batch-controller";
  private static final String CPU = "octomy.io/cpu-milli";
  private static final long BOUND_SECONDS = 60;
  private static RealCluster cluster;
  private static KubernetesClient admin;

  @BeforeAll
  static void ownControlPlane() {
    cluster = RealCluster.startAt(Path.of("target", "uninstall-cluster").toAbsolutePath());
    admin = cluster.admin();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void kubectlDeleteKustomizeFinishesWithJobsWaitingAndRunning() throws Exception {
    KubectlRun.Result applied = cluster.kubectl().run("apply", "-k", "manifests/");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    awaitCrds();
    try (Running product = startProduct("kustomize");
        JobLedger ledger = new JobLedger(admin, Map.of(CPU, 1000L))) {
      String work = jobsWaitingAndRunning("work-k");
      long started = System.nanoTime();
      KubectlRun.Result deleted =
          cluster.kubectl().run("delete", "-k", "manifests/", "--timeout=" + BOUND_SECONDS + "s");
      long seconds = (System.nanoTime() - started) / 1_000_000_000L;
      System.out.printf("kubectl delete -k manifests/ finished in %d s%n", seconds);
      assertThat(deleted.exitCode()).as(deleted.all() + product.logs()).isZero();
      assertThat(seconds).as("kubectl delete -k took %d s", seconds).isLessThan(BOUND_SECONDS);
      assertThat(admin.apiextensions().v1().customResourceDefinitions().list().getItems())
          .noneMatch(crd -> crd.getMetadata().getName().endsWith(".batch.octomy.io"));
      assertThat(admin.namespaces().withName(NS).get()).isNull();
      assertNothingTerminating();
      assertThat(admin.namespaces().withName(work).get().getStatus().getPhase())
          .isEqualTo("Active");
      assertThat(product.controller.output()).contains("the product is being uninstalled");
      assertThat(ledger.violations()).isEmpty();
    }
  }

  @Test
  void helmUninstallThenDeletingTheJobsFinishes() throws Exception {
    new Helm(HelmChartOnRealServerIT.CHART)
        .install()
        .withKubeConfig(cluster.kubeconfig())
        .withName("octomy-batch")
        .withNamespace(NS)
        .createNamespace()
        .call();
    awaitCrds();
    try (Running product = startProduct("helm");
        JobLedger ledger = new JobLedger(admin, Map.of(CPU, 1000L))) {
      String work = jobsWaitingAndRunning("work-h");
      long started = System.nanoTime();
      Helm.uninstall("octomy-batch").withKubeConfig(cluster.kubeconfig()).withNamespace(NS).call();
      // Helm keeps crds/, so the jobs stay; the controller takes its finalizer off them before its
      // ServiceAccount and RBAC go, and decides nothing more meanwhile.
      Eventually.within(
          (int) BOUND_SECONDS,
          () ->
              assertThat(guardedObjects())
                  .as("the controller's ServiceAccount, ClusterRole and ClusterRoleBinding")
                  .isEmpty());
      BatchJob waiting = job(work, "waiting");
      assertThat(waiting.getStatus().getPhase()).isEqualTo(JobPhase.Queued);
      assertThat(waiting.getStatus().getNode()).isNull();
      assertThat(job(work, "running").getStatus().getPhase()).isEqualTo(JobPhase.Running);
      KubectlRun.Result deleted =
          cluster
              .kubectl()
              .run("delete", "bj", "--all", "-n", work, "--timeout=" + BOUND_SECONDS + "s");
      long seconds = (System.nanoTime() - started) / 1_000_000_000L;
      System.out.printf("helm uninstall, then kubectl delete bj --all finished in %d s%n", seconds);
      assertThat(deleted.exitCode()).as(deleted.all() + product.logs()).isZero();
      assertThat(seconds)
          .as("helm uninstall and kubectl delete bj --all took %d s", seconds)
          .isLessThan(BOUND_SECONDS);
      assertThat(admin.resources(BatchJob.class).inNamespace(work).list().getItems()).isEmpty();
      assertNothingTerminating();
      assertThat(ledger.violations()).isEmpty();
    }
    KubectlRun.Result crds =
        cluster.kubectl().run("delete", "-f", "crds/", "--timeout=" + BOUND_SECONDS + "s");
    assertThat(crds.exitCode()).as(crds.all()).isZero();
  }

  /** A namespace with one job running (it fills the node) and one waiting behind it. */
  private String jobsWaitingAndRunning(String prefix) {
    String work = cluster.namespace(prefix);
    create(work, manifest("running", ""));
    Eventually.within(
        60,
        () -> assertThat(job(work, "running").getStatus().getPhase()).isEqualTo(JobPhase.Running));
    // Stored with the finalizer, as the chart's webhook stores every new job (the test cluster
    // cannot reach the webhook: nothing here answers its Service).
    create(work, manifest("waiting", ", finalizers: [" + Finalizers.RESERVATION + "]"));
    Eventually.within(
        30,
        () -> {
          BatchJob w = job(work, "waiting");
          assertThat(w.getStatus()).isNotNull();
          assertThat(w.getStatus().getReason()).isEqualTo("WaitingForCapacity");
        });
    assertThat(job(work, "running").getMetadata().getFinalizers()).contains(Finalizers.RESERVATION);
    Eventually.within(
        30,
        () ->
            assertThat(guardedObjects())
                .as("the uninstall guard is on all three")
                .hasSize(3)
                .allSatisfy(
                    o ->
                        assertThat(o.getMetadata().getFinalizers())
                            .contains(Finalizers.UNINSTALL_GUARD)));
    return work;
  }

  private static List<HasMetadata> guardedObjects() {
    return Stream.<HasMetadata>of(
            admin.serviceAccounts().inNamespace(NS).withName(CONTROLLER).get(),
            admin.rbac().clusterRoles().withName(CONTROLLER).get(),
            admin.rbac().clusterRoleBindings().withName(CONTROLLER).get())
        .filter(Objects::nonNull)
        .toList();
  }

  private static void assertNothingTerminating() {
    assertThat(admin.namespaces().list().getItems())
        .noneMatch(n -> n.getMetadata().getDeletionTimestamp() != null);
    assertThat(admin.apiextensions().v1().customResourceDefinitions().list().getItems())
        .noneMatch(c -> c.getMetadata().getDeletionTimestamp() != null);
    assertThat(guardedObjects()).isEmpty();
  }

  private static void awaitCrds() {
    KubectlRun.Result r =
        cluster
            .kubectl()
            .run(
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "crd/batchjobs.batch.octomy.io",
                "crd/batchnodes.batch.octomy.io");
    assertThat(r.exitCode()).as(r.all()).isZero();
  }

  private static BatchJob job(String ns, String name) {
    return admin.resources(BatchJob.class).inNamespace(ns).withName(name).get();
  }

  private static void create(String ns, String manifest) {
    KubectlRun.Result r = cluster.kubectl().runWithInput(manifest, "create", "-n", ns, "-f", "-");
    assertThat(r.exitCode()).as(r.all()).isZero();
  }

  /**
   * A job that fills the node; {@code metadata} is added to its metadata's flow mapping. It ignores
   * SIGTERM, as work that takes its time to stop does (a Pod's grace period): stopping it outlasts
   * the controller's credentials, so only a release before they go lets the uninstall finish.
   */
  private static String manifest(String name, String metadata) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s%s}
        spec:
          resources:
            requests: {octomy.io/cpu-milli: 1000}
            limits: {octomy.io/cpu-milli: 1000}
          template:
            spec:
              containers: [{name: main, image: busybox, command: [sh, -c, "trap '' TERM; sleep 90"]}]
        """
        .formatted(name, metadata);
  }

  /** The controller and one Process agent, as processes with their ServiceAccounts' tokens. */
  private Running startProduct(String run) throws Exception {
    Path dir = Files.createDirectories(cluster.dir().resolve(run));
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(
        policy,
        admin
            .configMaps()
            .inNamespace(NS)
            .withName("octomy-batch-policy")
            .get()
            .getData()
            .get("policy.yaml"));
    ProductProcess controller =
        ProductProcess.start(
            dir.resolve("controller.log"),
            Map.of(),
            "controller",
            "--kubeconfig",
            kubeconfig(dir, CONTROLLER).toString(),
            "--policy",
            policy.toString(),
            "--metrics-port",
            "-1");
    ProductProcess agent = null;
    try {
      controller.awaitLine("octomy-batch controller watching", Duration.ofSeconds(90));
      Path agentConfig = dir.resolve("agent.kubeconfig");
      Path plugins = Files.createDirectories(dir.resolve("plugins"));
      Files.copy(
          Path.of("target", "kubectl-octomy"),
          plugins.resolve("kubectl-octomy"),
          StandardCopyOption.REPLACE_EXISTING);
      KubectlRun.Result written =
          new KubectlRun(cluster.kubeconfig(), dir.resolve("home"), plugins)
              .run(
                  "octomy",
                  "kubeconfig",
                  "--for",
                  "agent",
                  "--node",
                  run + "-node",
                  "-o",
                  agentConfig.toString());
      assertThat(written.exitCode()).as(written.all()).isZero();
      agent =
          ProductProcess.start(
              dir.resolve("agent.log"),
              Map.of(),
              "agent",
              "--node",
              run + "-node",
              "--executor",
              "Process",
              "--capacity",
              CPU + "=1000",
              "--kubeconfig",
              agentConfig.toString(),
              "--logs-address",
              "127.0.0.1",
              "--logs-port",
              "0",
              "--state-dir",
              Files.createDirectories(dir.resolve("agent-state")).toString(),
              "--policy",
              policy.toString());
      agent.awaitLine("agent for node", Duration.ofSeconds(60));
      return new Running(controller, agent);
    } catch (Exception | AssertionError e) {
      controller.close();
      if (agent != null) {
        agent.close();
      }
      throw e;
    }
  }

  /** A kubeconfig with a server-minted token (TokenRequest) for a ServiceAccount of the product. */
  private static Path kubeconfig(Path dir, String serviceAccount) throws Exception {
    String token =
        admin
            .serviceAccounts()
            .inNamespace(NS)
            .withName(serviceAccount)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    String ca =
        Base64.getEncoder()
            .encodeToString(Files.readAllBytes(cluster.dir().resolve("pki").resolve("ca.crt")));
    Path f = dir.resolve(serviceAccount + ".kubeconfig");
    Files.writeString(
        f,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "%s", certificate-authority-data: %s}
        users:
        - name: u
          user: {token: %s}
        contexts:
        - name: c
          context: {cluster: c, user: u, namespace: %s}
        current-context: c
        """
            .formatted(cluster.server(), ca, token, NS));
    return f;
  }

  private record Running(ProductProcess controller, ProductProcess agent) implements AutoCloseable {

    String logs() throws Exception {
      return "\ncontroller:\n" + controller.tail() + "\nagent:\n" + agent.tail();
    }

    @Override
    public void close() throws Exception {
      agent.close();
      controller.close();
    }
  }
}
