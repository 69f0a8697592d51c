package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.Release;
import com.marcnuri.helm.TemplateCommand;
import com.marcnuri.helm.UpgradeCommand;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart installed, upgraded and uninstalled with real Helm (helm-java) on the real server,
 * which validates every object it renders (schemas, admission, RBAC escalation checks).
 */
class HelmChartOnRealServerIT {

  static final Path CHART = Path.of("helm/octomy-batch");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void installUpgradeAndUninstall() throws IOException {
    RealCluster cluster = RealCluster.get();
    cluster.requireCrds();
    KubernetesClient admin = cluster.admin();
    String release = "helm-check";
    String ns = "helm-check";
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("grafanaDashboard.enabled", true);
    // One APIService per cluster: the product's release registers it (AggregatedVisibilityE2E).
    values.put("visibility.enabled", false);

    InstallCommand install =
        new Helm(CHART)
            .install()
            .withKubeConfig(cluster.kubeconfig())
            .withName(release)
            .withNamespace(ns)
            .createNamespace();
    values.forEach(install::set);
    Release installed = install.call();
    assertThat(installed.getStatus()).isEqualTo("deployed");
    assertThat(installed.getRevision()).isEqualTo("1");
    // What helm install prints says what docs/deployment.md says: every replica Ready.
    String notes = installed.getOutput().replaceAll("\\s+", " ");
    assertThat(notes)
        .as(installed.getOutput())
        .contains(
            "Every replica reports Ready: the standby once it waits for the Lease, the one that"
                + " decides once it holds the Lease. So \"2/2\" ready is expected");
    assertThat(Files.readString(Path.of("docs/deployment.md")).replaceAll("\\s+", " "))
        .contains("Both replicas are Ready (`2/2`, as the chart's notes say)");
    List<JsonNode> objects = rendered(release, ns, values);
    assertThat(objects).hasSizeGreaterThan(12);
    for (JsonNode o : objects) {
      assertThat(onServer(admin, o, ns)).as("%s on the server", id(o)).isNotNull();
    }

    values.put("policy.groups.simulator.maxRunning", 2);
    String before = deploymentChecksum(admin, ns, release);
    UpgradeCommand upgrade =
        new Helm(CHART)
            .upgrade()
            .withKubeConfig(cluster.kubeconfig())
            .withName(release)
            .withNamespace(ns);
    values.forEach(upgrade::set);
    Release upgraded = upgrade.call();
    assertThat(upgraded.getStatus()).isEqualTo("deployed");
    assertThat(upgraded.getRevision()).isEqualTo("2");
    assertThat(
            admin
                .configMaps()
                .inNamespace(ns)
                .withName(release + "-octomy-batch-policy")
                .get()
                .getData()
                .get("policy.yaml"))
        .contains("maxRunning: 2");
    assertThat(deploymentChecksum(admin, ns, release))
        .as("a changed policy rolls the controller")
        .isNotEqualTo(before);

    String out =
        Helm.uninstall(release).withKubeConfig(cluster.kubeconfig()).withNamespace(ns).call();
    assertThat(out).contains(release);
    for (JsonNode o : objects) {
      assertThat(onServer(admin, o, ns)).as("%s after uninstall", id(o)).isNull();
    }
    assertThat(
            admin
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("batchjobs.batch.octomy.io")
                .get())
        .as("Helm never deletes CRDs")
        .isNotNull();
  }

  private static String deploymentChecksum(KubernetesClient admin, String ns, String release) {
    return admin
        .apps()
        .deployments()
        .inNamespace(ns)
        .withName(release + "-octomy-batch-controller")
        .get()
        .getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .get("checksum/policy");
  }

  static List<JsonNode> rendered(String release, String ns, Map<String, Object> values)
      throws IOException {
    TemplateCommand t = new Helm(CHART).template().withName(release).withNamespace(ns);
    values.forEach(t::set);
    List<JsonNode> docs = new ArrayList<>();
    try (var parser = YAML.createParser(t.call())) {
      YAML.readValues(parser, JsonNode.class)
          .forEachRemaining(
              d -> {
                if (d != null && d.isObject() && d.has("kind")) {
                  docs.add(d);
                }
              });
    }
    return docs;
  }

  private static GenericKubernetesResource onServer(KubernetesClient admin, JsonNode o, String ns) {
    var resources =
        admin.genericKubernetesResources(o.path("apiVersion").asText(), o.path("kind").asText());
    String name = o.path("metadata").path("name").asText();
    boolean namespaced = o.path("metadata").has("namespace");
    return namespaced
        ? resources.inNamespace(ns).withName(name).get()
        : resources.withName(name).get();
  }

  private static String id(JsonNode o) {
    return o.path("kind").asText() + "/" + o.path("metadata").path("name").asText();
  }
}
