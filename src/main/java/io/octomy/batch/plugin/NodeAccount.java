package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A workstation agent's ServiceAccount, RELEASE-agent-node-NODE, and its ClusterRoleBinding to the
 * chart's agent ClusterRole (the same grant the chart's agent has, nothing more). Created when
 * absent; an existing one is kept, so writing a kubeconfig again only mints a new token.
 */
final class NodeAccount {

  private NodeAccount() {}

  static void ensure(
      KubernetesClient client,
      String namespace,
      String chartAccount,
      String account,
      JsonNode chartLabels) {
    ObjectMapper json = new ObjectMapper();
    ObjectNode sa = json.createObjectNode().put("apiVersion", "v1").put("kind", "ServiceAccount");
    metadata(sa, account, chartLabels).put("namespace", namespace);
    create(
        client,
        "/api/v1/namespaces/" + PathSegments.namespace(namespace) + "/serviceaccounts",
        sa,
        "ServiceAccount " + namespace + "/" + account);

    ObjectNode binding =
        json.createObjectNode()
            .put("apiVersion", "rbac.authorization.k8s.io/v1")
            .put("kind", "ClusterRoleBinding");
    metadata(binding, account, chartLabels);
    binding
        .putObject("roleRef")
        .put("apiGroup", "rbac.authorization.k8s.io")
        .put("kind", "ClusterRole")
        .put("name", chartAccount);
    binding
        .putArray("subjects")
        .addObject()
        .put("kind", "ServiceAccount")
        .put("name", account)
        .put("namespace", namespace);
    create(
        client,
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        binding,
        "ClusterRoleBinding " + account);
  }

  /** The chart's labels (name, instance, version, part-of, component: agent), as its agent's. */
  private static ObjectNode metadata(ObjectNode object, String name, JsonNode chartLabels) {
    ObjectNode metadata = object.putObject("metadata").put("name", name);
    ObjectNode labels = metadata.putObject("labels");
    chartLabels.fields().forEachRemaining(e -> labels.set(e.getKey(), e.getValue()));
    labels.put("app.kubernetes.io/component", "agent");
    return metadata;
  }

  private static void create(KubernetesClient client, String path, ObjectNode body, String what) {
    KubeconfigCommand.ServerAnswer answer = KubeconfigCommand.send(client, path, body.toString());
    if (answer.code() != 201 && answer.code() != 200 && answer.code() != 409) {
      throw new PluginException(
          "error: cannot create the "
              + what
              + " ("
              + answer.body().path("message").asText("code " + answer.code())
              + "): it needs create on serviceaccounts there and on clusterrolebindings, as a"
              + " cluster administrator has.");
    }
  }
}
