package io.octomy.batch.agent;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.vocabulary.NodeMode;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;

/**
 * The only two writes the agent makes to its BatchNode: create it when missing, and replace its
 * status. The spec of an existing node is never written: it belongs to people and GitOps.
 */
final class NodeStatusWriter {

  private final KubernetesClient client;
  private final String nodeName;

  NodeStatusWriter(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
  }

  /**
   * The node as it is, created first with {@code mode} and {@code executor} when it does not exist.
   * {@code ownMode} is left unset, which means the same as {@code mode}: written here it would stay
   * after a manifest that names only {@code mode} is applied (kubectl and GitOps tools keep fields
   * their manifest leaves out), so the node's own work would get the agent's mode or the manifest's
   * depending on which came first. Losing a creation race to someone else is fine: theirs is kept.
   */
  BatchNode ensureExists(NodeMode mode, Executor executor) {
    BatchNode existing = client.resources(BatchNode.class).withName(nodeName).get();
    if (existing != null) {
      return existing;
    }
    BatchNode node = new BatchNode();
    node.setMetadata(new ObjectMetaBuilder().withName(nodeName).build());
    BatchNodeSpec spec = new BatchNodeSpec();
    spec.setMode(mode);
    spec.setExecutor(executor);
    node.setSpec(spec);
    try {
      return client.resources(BatchNode.class).resource(node).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return client.resources(BatchNode.class).withName(nodeName).get();
      }
      throw e;
    }
  }

  /**
   * Replaces the whole status with one JSON patch ({@code add} of {@code /status} replaces an
   * existing value). A whole replacement drops names that left capacity, which a merge patch would
   * keep; a patch needs no resourceVersion, so a concurrent spec edit cannot make it conflict; and
   * JSON patch is accepted by every API server and the fabric8 mock server, where server-side apply
   * is not.
   */
  void writeStatus(BatchNodeStatus status) {
    String patch =
        client
            .getKubernetesSerialization()
            .asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
    // The patch names a node carrying only its name: fabric8 reads the object from the server
    // before a patch whose operation holds none (a GET before every report).
    BatchNode named = new BatchNode();
    named.setMetadata(new ObjectMetaBuilder().withName(nodeName).build());
    client
        .resources(BatchNode.class)
        .resource(named)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), patch);
  }
}
