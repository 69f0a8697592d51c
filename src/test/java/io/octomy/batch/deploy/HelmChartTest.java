package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.octomy.batch.controller.aggregated.ReservationFinalizerWebhook;
import io.octomy.batch.controller.aggregated.ServingReplica;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chart lints and renders the objects the docs promise, with default and changed values. */
class HelmChartTest {

  @Test
  void lintsCleanly() {
    LintResult lint = new Helm(Chart.DIR).lint().strict().call();
    assertThat(lint.isFailed()).as("helm lint --strict: %s", lint.getMessages()).isFalse();
  }

  @Test
  void defaultRenderHasTheControllerTheAgentAndTheirPermissions() {
    Chart.Rendered r = Chart.defaults();
    List<String> keys = new ArrayList<>(r.byKey().keySet());
    assertThat(keys)
        .containsExactlyInAnyOrder(
            "ConfigMap/octomy-system/octomy-batch-policy",
            "ServiceAccount/octomy-system/octomy-batch-controller",
            "ServiceAccount/octomy-system/octomy-batch-agent",
            "ClusterRole//octomy-batch-controller",
            "ClusterRoleBinding//octomy-batch-controller",
            "Role/octomy-system/octomy-batch-controller-leader-election",
            "RoleBinding/octomy-system/octomy-batch-controller-leader-election",
            "ClusterRole//octomy-batch-agent",
            "ClusterRoleBinding//octomy-batch-agent",
            "ValidatingAdmissionPolicy//octomy-batch-agent-own-node",
            "ValidatingAdmissionPolicyBinding//octomy-batch-agent-own-node",
            "ValidatingAdmissionPolicy//octomy-batch-agent-token-kept",
            "ValidatingAdmissionPolicyBinding//octomy-batch-agent-token-kept",
            "ClusterRole//octomy-batch-user",
            "ClusterRole//octomy-batch-viewer",
            "ClusterRole//octomy-batch-queue-reader",
            "ClusterRoleBinding//octomy-batch-queue-reader",
            "Deployment/octomy-system/octomy-batch-controller",
            "DaemonSet/octomy-system/octomy-batch-agent",
            "Service/octomy-system/octomy-batch-metrics",
            "Service/octomy-system/octomy-batch-visibility",
            "APIService//v1alpha1.visibility.batch.octomy.io",
            "MutatingWebhookConfiguration//octomy-batch-reservation-finalizer",
            "ClusterRoleBinding//octomy-batch-controller-auth-delegator",
            "RoleBinding/kube-system/octomy-batch-controller-auth-reader",
            "Role/octomy-system/octomy-batch-controller-visibility",
            "RoleBinding/octomy-system/octomy-batch-controller-visibility");
  }

  @Test
  void newJobsGetTheReservationFinalizerFromTheServingReplicaAndCreatesNeverWaitOnIt() {
    Chart.Rendered r = Chart.defaults();
    JsonNode webhook =
        r.get("MutatingWebhookConfiguration", ServingReplica.WEBHOOK_CONFIGURATION)
            .path("webhooks")
            .get(0);
    assertThat(webhook.path("name").asText()).isEqualTo(ServingReplica.WEBHOOK);
    assertThat(webhook.path("failurePolicy").asText()).isEqualTo("Ignore");
    assertThat(webhook.path("sideEffects").asText()).isEqualTo("None");
    assertThat(webhook.at("/clientConfig/service/name").asText())
        .isEqualTo("octomy-batch-visibility");
    assertThat(webhook.at("/clientConfig/service/path").asText())
        .isEqualTo(ReservationFinalizerWebhook.PATH);
    assertThat(webhook.at("/clientConfig/caBundle").isMissingNode())
        .as("the serving replica publishes its own certificate")
        .isTrue();
    assertThat(webhook.at("/rules/0/operations").toString()).isEqualTo("[\"CREATE\"]");
    assertThat(webhook.at("/rules/0/resources").toString()).isEqualTo("[\"batchjobs\"]");

    assertThat(Chart.template(Map.of("reservationWebhook.enabled", "false")).byKey())
        .doesNotContainKey("MutatingWebhookConfiguration//octomy-batch-reservation-finalizer");
    assertThat(Chart.template(Map.of("visibility.enabled", "false")).byKey())
        .doesNotContainKey("MutatingWebhookConfiguration//octomy-batch-reservation-finalizer");
  }

  @Test
  void theVisibilityApiIsAggregatedAndReachesOnlyTheServingReplica() {
    Chart.Rendered r = Chart.defaults();
    JsonNode api = r.get("APIService", "v1alpha1.visibility.batch.octomy.io");
    assertThat(api.at("/spec/group").asText()).isEqualTo("visibility.batch.octomy.io");
    assertThat(api.at("/spec/version").asText()).isEqualTo("v1alpha1");
    assertThat(api.at("/spec/service/name").asText()).isEqualTo("octomy-batch-visibility");
    assertThat(api.at("/spec/service/namespace").asText()).isEqualTo(Chart.NAMESPACE);
    assertThat(api.at("/spec/service/port").asInt()).isEqualTo(443);
    assertThat(api.at("/spec/insecureSkipTLSVerify").asBoolean())
        .as("the serving replica publishes its certificate as the caBundle")
        .isFalse();
    JsonNode service = r.get("Service", "octomy-batch-visibility");
    assertThat(service.at("/spec/type").asText()).isEqualTo("ClusterIP");
    assertThat(service.at("/spec/selector/batch.octomy.io~1visibility").asText())
        .isEqualTo("serving");
    assertThat(service.at("/spec/selector/app.kubernetes.io~1component").asText())
        .isEqualTo("controller");
    assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo("visibility");
    JsonNode c = r.controllerPod().at("/spec/containers/0");
    assertThat(c.at("/ports/1/name").asText()).isEqualTo("visibility");
    assertThat(c.at("/ports/1/containerPort").asInt()).isEqualTo(8443);
    assertThat(
            r.get("ClusterRoleBinding", "octomy-batch-controller-auth-delegator")
                .at("/roleRef/name")
                .asText())
        .isEqualTo("system:auth-delegator");
    assertThat(
            r.get("RoleBinding", "octomy-batch-controller-auth-reader")
                .at("/roleRef/name")
                .asText())
        .isEqualTo("extension-apiserver-authentication-reader");

    Chart.Rendered off = Chart.template(Map.of("visibility.enabled", "false"));
    assertThat(off.find("APIService", "v1alpha1.visibility.batch.octomy.io")).isEmpty();
    assertThat(off.find("Service", "octomy-batch-visibility")).isEmpty();
    assertThat(off.find("RoleBinding", "octomy-batch-controller-auth-reader")).isEmpty();
    assertThat(texts(off.controllerPod().at("/spec/containers/0/args")))
        .noneMatch(a -> a.startsWith("--visibility"));
  }

  @Test
  void controllerRunsTwoReplicasWithLeaderElectionProbesAndThePolicy() {
    JsonNode deployment = Chart.defaults().get("Deployment", "octomy-batch-controller");
    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    JsonNode c = deployment.at("/spec/template/spec/containers/0");
    assertThat(c.path("image").asText()).isEqualTo("ghcr.io/octomy/octomy-batch:0.1.0");
    assertThat(texts(c.path("args")))
        .containsExactly(
            "controller",
            "--policy=/etc/octomy/policy.yaml",
            "--leader-election",
            "--lease-namespace=$(POD_NAMESPACE)",
            "--metrics-port=8080",
            "--uninstall-guard=octomy-batch-controller",
            "--visibility-port=8443",
            "--visibility-service=octomy-batch-visibility");
    assertThat(c.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(c.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
    assertThat(c.at("/livenessProbe/httpGet/port").asText()).isEqualTo("metrics");
    assertThat(c.at("/ports/0/containerPort").asInt()).isEqualTo(8080);
    assertThat(fieldRef(c, "POD_NAME")).isEqualTo("metadata.name");
    assertThat(fieldRef(c, "POD_NAMESPACE")).isEqualTo("metadata.namespace");
    assertThat(mountOf(deployment.at("/spec/template"), "policy")).isEqualTo("/etc/octomy");
    assertThat(deployment.at("/spec/template/spec/volumes/0/configMap/name").asText())
        .isEqualTo("octomy-batch-policy");
    assertThat(deployment.at("/spec/template/metadata/annotations/checksum~1policy").asText())
        .matches("[0-9a-f]{64}");
  }

  @Test
  void agentGetsItsNodeNameFromTheDownwardApiAndRunsPodJobs() {
    JsonNode pod = Chart.defaults().agentPod();
    JsonNode c = pod.at("/spec/containers/0");
    assertThat(texts(c.path("args")))
        .containsExactly(
            "agent",
            "--node=$(NODE_NAME)",
            "--executor=Pod",
            "--mode=Drone",
            "--policy=/etc/octomy/policy.yaml");
    assertThat(fieldRef(c, "NODE_NAME")).isEqualTo("spec.nodeName");
    assertThat(pod.at("/spec/serviceAccountName").asText()).isEqualTo("octomy-batch-agent");
  }

  @Test
  void changedValuesReachTheObjects() {
    Chart.Rendered r =
        Chart.template(
            Map.of(
                "image.repository",
                "registry.example.com/octomy",
                "image.tag",
                "1.2.3",
                "controller.replicas",
                "1",
                "controller.leaderElection",
                "false",
                "agent.mode",
                "Background",
                "agent.capacity.example\\.com/su2-processes",
                "16",
                "metrics.serviceMonitor.enabled",
                "true",
                "grafanaDashboard.enabled",
                "true",
                "agent.restrictToOwnNode",
                "true"));
    JsonNode c = r.controllerPod().at("/spec/containers/0");
    assertThat(c.path("image").asText()).isEqualTo("registry.example.com/octomy:1.2.3");
    assertThat(texts(c.path("args")))
        .contains("--no-leader-election")
        .doesNotContain("--leader-election");
    assertThat(r.find("Role", "octomy-batch-controller-leader-election"))
        .as("no Lease, no Role")
        .isEmpty();
    assertThat(texts(r.agentPod().at("/spec/containers/0/args")))
        .contains("--mode=Background", "--capacity=example.com/su2-processes=16");
    JsonNode sm = r.get("ServiceMonitor", "octomy-batch");
    assertThat(sm.at("/spec/endpoints/0/port").asText()).isEqualTo("metrics");
    assertThat(sm.at("/spec/endpoints/0/path").asText()).isEqualTo("/metrics");
    assertThat(
            r.get("ConfigMap", "octomy-batch-dashboard")
                .at("/metadata/labels/grafana_dashboard")
                .asText())
        .isEqualTo("1");
    assertThat(r.find("ValidatingAdmissionPolicy", "octomy-batch-agent-own-node")).isPresent();
    assertThat(
            r.get("ValidatingAdmissionPolicyBinding", "octomy-batch-agent-own-node")
                .at("/spec/validationActions/0")
                .asText())
        .isEqualTo("Deny");
  }

  @Test
  void largeCapacitiesAreWrittenAsWholeNumbers() {
    // Helm reads numbers as floats; 68719476736 must not come out as 6.8719476736e+10.
    JsonNode args =
        Chart.template(Map.of("agent.capacity.octomy\\.io/memory-bytes", "68719476736"))
            .agentPod()
            .at("/spec/containers/0/args");
    assertThat(texts(args)).contains("--capacity=octomy.io/memory-bytes=68719476736");
  }

  @Test
  void theAgentCanBeLeftOut() {
    Chart.Rendered r = Chart.template(Map.of("agent.enabled", "false"));
    assertThat(r.objects()).noneMatch(o -> o.at("/metadata/name").asText().contains("agent"));
  }

  @Test
  void twoActiveControllersAreRefused() {
    assertThatThrownBy(() -> Chart.template(Map.of("controller.leaderElection", "false")))
        .hasMessageContaining("needs controller.leaderElection");
  }

  @Test
  void aValueTheChartDoesNotKnowIsRefusedNamingIt() {
    assertThatThrownBy(() -> Chart.template(Map.of("agent.exector", "Process")))
        .as("a misspelt value would otherwise be ignored without a word")
        .hasMessageContaining("exector")
        .hasMessageContaining("not allowed");
  }

  @Test
  void aValueOutsideItsChoicesIsRefusedWithTheChoices() {
    assertThatThrownBy(() -> Chart.template(Map.of("agent.executor", "Processes")))
        .hasMessageContaining("/agent/executor")
        .hasMessageContaining("'Pod', 'Process'");
    assertThatThrownBy(() -> Chart.template(Map.of("agent.mode", "drone")))
        .hasMessageContaining("/agent/mode")
        .hasMessageContaining("'Drone'");
    assertThatThrownBy(() -> Chart.template(Map.of("visibility.port", "70000")))
        .hasMessageContaining("/visibility/port");
  }

  @Test
  void aProcessExecutorInsideTheDaemonSetIsRefusedSayingWhyAndWhatInstead() {
    // Its jobs would run in the agent's container, where the agent's token is mounted.
    assertThatThrownBy(() -> Chart.template(Map.of("agent.executor", "Process")))
        .hasMessageContaining("service-account token")
        .hasMessageContaining("Use Pod");
    JsonNode pod = Chart.defaults().agentPod();
    assertThat(texts(pod.at("/spec/containers/0/args")))
        .contains("--executor=Pod")
        .noneMatch(a -> a.startsWith("--state-dir"));
  }

  @Test
  void metricsServiceSelectsOnlyControllerPods() {
    Chart.Rendered r = Chart.defaults();
    JsonNode selector = r.get("Service", "octomy-batch-metrics").at("/spec/selector");
    JsonNode podLabels = r.controllerPod().at("/metadata/labels");
    selector
        .fields()
        .forEachRemaining(
            e -> assertThat(podLabels.path(e.getKey()).asText()).isEqualTo(e.getValue().asText()));
    assertThat(selector.path("app.kubernetes.io/component").asText()).isEqualTo("controller");
    assertThat(r.agentPod().at("/metadata/labels/app.kubernetes.io~1component").asText())
        .isEqualTo("agent");
  }

  static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  static String fieldRef(JsonNode container, String env) {
    for (JsonNode e : container.path("env")) {
      if (env.equals(e.path("name").asText())) {
        return e.at("/valueFrom/fieldRef/fieldPath").asText();
      }
    }
    throw new AssertionError("no env " + env + " in " + container.path("name").asText());
  }

  static String mountOf(JsonNode podTemplate, String volume) {
    for (JsonNode m : podTemplate.at("/spec/containers/0/volumeMounts")) {
      if (volume.equals(m.path("name").asText())) {
        return m.path("mountPath").asText();
      }
    }
    throw new AssertionError("volume " + volume + " is not mounted");
  }
}
