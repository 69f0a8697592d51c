package io.octomy.batch.realcluster;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * The Helm chart installed once on the real cluster (release {@code octomy-batch} in {@code
 * octomy-system}, agent policy on by default), and credentials for its components: a token minted
 * by the server (TokenRequest) for the chart's own ServiceAccount, bound to a Pod made from the
 * chart's own Pod template and bound to a node, as a kubelet would get for the real Pod. No kubelet
 * runs those Pods; the component runs as a process here with that token.
 */
public final class ProductDeployment {

  public static final String NS = "octomy-system";
  public static final String RELEASE = "octomy-batch";
  static final String CONTROLLER_SA = "octomy-batch-controller";
  static final String AGENT_SA = "octomy-batch-agent";
  static final String LEASE = "octomy-batch-controller";

  private static ProductDeployment instance;

  private final RealCluster cluster;
  private final Path dir;

  private ProductDeployment(RealCluster cluster, Path dir) {
    this.cluster = cluster;
    this.dir = dir;
  }

  static synchronized ProductDeployment get() throws IOException {
    if (instance == null) {
      // Registered only while AggregatedVisibilityE2E runs a replica that answers: an
      // APIService nobody answers makes every kubectl discovery on the cluster warn.
      instance = installOn(RealCluster.get(), false);
    }
    return instance;
  }

  /**
   * The CRDs and the chart on {@code c}, with the visibility API (and the reservation webhook
   * served beside it) registered or not: for a benchmark's control plane of its own.
   */
  public static ProductDeployment installOn(RealCluster c, boolean visibility) throws IOException {
    c.requireCrds();
    new Helm(HelmChartOnRealServerIT.CHART)
        .install()
        .withKubeConfig(c.kubeconfig())
        .withName(RELEASE)
        .withNamespace(NS)
        .createNamespace()
        .set("visibility.enabled", visibility)
        .call();
    return new ProductDeployment(c, Files.createDirectories(c.dir().resolve("product")));
  }

  /** Upgrades the release with the aggregated visibility API registered, or not. */
  void enableVisibility(boolean enabled) {
    new Helm(HelmChartOnRealServerIT.CHART)
        .upgrade()
        .withKubeConfig(cluster.kubeconfig())
        .withName(RELEASE)
        .withNamespace(NS)
        .set("visibility.enabled", enabled)
        .call();
  }

  /** Upgrades the release with the agent's own-node policy on (the default) or off. */
  void restrictAgentsToOwnNode(boolean on) {
    new Helm(HelmChartOnRealServerIT.CHART)
        .upgrade()
        .withKubeConfig(cluster.kubeconfig())
        .withName(RELEASE)
        .withNamespace(NS)
        .reuseValues()
        .set("agent.restrictToOwnNode", on)
        .call();
  }

  public RealCluster cluster() {
    return cluster;
  }

  public Path dir() {
    return dir;
  }

  /** The policy as the chart's ConfigMap holds it (what the Pods would mount). */
  public Path policyFile() throws IOException {
    Path f = dir.resolve("policy.yaml");
    String text =
        cluster
            .admin()
            .configMaps()
            .inNamespace(NS)
            .withName(RELEASE + "-policy")
            .get()
            .getData()
            .get("policy.yaml");
    Files.writeString(f, text);
    return f;
  }

  /** A kubeconfig with a token for the controller's ServiceAccount, bound to Pod {@code pod}. */
  public Path controllerKubeconfig(String pod) throws IOException {
    PodTemplateSpec t =
        cluster
            .admin()
            .apps()
            .deployments()
            .inNamespace(NS)
            .withName(RELEASE + "-controller")
            .get()
            .getSpec()
            .getTemplate();
    return kubeconfig(CONTROLLER_SA, podFrom(t, pod, "controller-host"));
  }

  /** A kubeconfig with a token for the agent's ServiceAccount, bound to Pod {@code pod} on node. */
  Path agentKubeconfig(String pod, String node) throws IOException {
    PodTemplateSpec t =
        cluster
            .admin()
            .apps()
            .daemonSets()
            .inNamespace(NS)
            .withName(RELEASE + "-agent")
            .get()
            .getSpec()
            .getTemplate();
    return kubeconfig(AGENT_SA, podFrom(t, pod, node));
  }

  private Pod podFrom(PodTemplateSpec template, String name, String node) {
    KubernetesClient admin = cluster.admin();
    Pod existing = admin.pods().inNamespace(NS).withName(name).get();
    if (existing != null) {
      return existing;
    }
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(NS)
            .withLabels(template.getMetadata().getLabels())
            .endMetadata()
            .withSpec(template.getSpec())
            .editSpec()
            .withNodeName(node)
            .endSpec()
            .build();
    return admin.pods().inNamespace(NS).resource(pod).create();
  }

  private Path kubeconfig(String serviceAccount, Pod boundTo) throws IOException {
    TokenRequest request =
        new TokenRequestBuilder()
            .withNewSpec()
            .withExpirationSeconds(3600L)
            .withNewBoundObjectRef()
            .withApiVersion("v1")
            .withKind("Pod")
            .withName(boundTo.getMetadata().getName())
            .withUid(boundTo.getMetadata().getUid())
            .endBoundObjectRef()
            .endSpec()
            .build();
    String token =
        cluster
            .admin()
            .serviceAccounts()
            .inNamespace(NS)
            .withName(serviceAccount)
            .tokenRequest(request)
            .getStatus()
            .getToken();
    return tokenKubeconfig(boundTo.getMetadata().getName(), serviceAccount, token, NS);
  }

  /** A kubeconfig file for the real server with {@code token} as its user's credentials. */
  Path tokenKubeconfig(String file, String user, String token, String namespace)
      throws IOException {
    String ca =
        Base64.getEncoder()
            .encodeToString(Files.readAllBytes(cluster.dir().resolve("pki").resolve("ca.crt")));
    Path f = dir.resolve(file + ".kubeconfig");
    Files.writeString(
        f,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test-cluster
          cluster: {server: "%s", certificate-authority-data: %s}
        users:
        - name: %s
          user: {token: %s}
        contexts:
        - name: %s
          context: {cluster: test-cluster, user: %s, namespace: %s}
        current-context: %s
        """
            .formatted(cluster.server(), ca, user, token, user, user, namespace, user));
    return f;
  }

  static String user(String serviceAccount) {
    return "system:serviceaccount:" + NS + ":" + serviceAccount;
  }
}
