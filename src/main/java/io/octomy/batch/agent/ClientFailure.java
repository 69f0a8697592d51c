package io.octomy.batch.agent;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * A failed API call in the agent's log, in the server's words. The client's own words name the
 * namespace of its kubeconfig even for a BatchNode, which has none ("Operation: [get] for kind:
 * [BatchNode] with name: [ws-1] in namespace: [octomy-system] failed."), and leave out why.
 */
final class ClientFailure {

  private ClientFailure() {}

  static String describe(RuntimeException e) {
    if (!(e instanceof KubernetesClientException k)) {
      return e.toString();
    }
    if (k.getStatus() != null && k.getStatus().getMessage() != null) {
      return "HTTP " + k.getCode() + ": " + k.getStatus().getMessage();
    }
    // The first cause with words of its own, else the innermost one: the JDK's client reports a
    // refused connection as a bare ConnectException wrapped in a bare IOException.
    Throwable innermost = null;
    for (Throwable c = k.getCause(); c != null && c != innermost; c = c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        return c.toString();
      }
      innermost = c;
    }
    return innermost != null ? innermost.toString() : "HTTP " + k.getCode();
  }
}
