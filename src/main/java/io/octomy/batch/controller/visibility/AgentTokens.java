package io.octomy.batch.controller.visibility;

import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.octomy.batch.api.LogEndpoint;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokens this controller shows an agent when it reads a job's output there: minted for its own
 * service account (TokenRequest) with one node's audience ({@link LogEndpoint#audience}), so an
 * agent, which may run on a workstation, never holds a token that the API server or another agent
 * would accept. Each is reused for half its life.
 */
public final class AgentTokens {

  /** The shortest life the API server grants. */
  private static final long LIFE_SECONDS = 600;

  private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

  private record Minted(String token, Instant renewAfter) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Minted> byNode = new ConcurrentHashMap<>();
  private volatile String[] account; // namespace, name: learnt once

  public AgentTokens(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * A token for {@code node}'s agent.
   *
   * @throws VisibilityException saying why none can be had
   */
  public String forNode(String node) {
    Instant now = clock.instant();
    Minted kept = byNode.get(node);
    if (kept != null && now.isBefore(kept.renewAfter())) {
      return kept.token();
    }
    String[] who = account();
    TokenRequest minted;
    try {
      minted =
          client
              .serviceAccounts()
              .inNamespace(who[0])
              .withName(who[1])
              .tokenRequest(
                  new TokenRequestBuilder()
                      .withNewSpec()
                      .withAudiences(LogEndpoint.audience(node))
                      .withExpirationSeconds(LIFE_SECONDS)
                      .endSpec()
                      .build());
    } catch (KubernetesClientException e) {
      throw unavailable(
          "this controller cannot mint a token for node "
              + node
              + "'s agent ("
              + e.getMessage()
              + "): its account "
              + who[0]
              + "/"
              + who[1]
              + " needs create on serviceaccounts/token for itself, which the chart grants with"
              + " visibility.enabled.");
    }
    String token = minted.getStatus().getToken();
    byNode.put(node, new Minted(token, now.plus(Duration.ofSeconds(LIFE_SECONDS / 2))));
    return token;
  }

  /** This controller's service account, from the API server's SelfSubjectReview. */
  private String[] account() {
    String[] known = account;
    if (known != null) {
      return known;
    }
    String user;
    try {
      SelfSubjectReview review =
          client.authentication().v1().selfSubjectReviews().create(new SelfSubjectReview());
      user = review.getStatus().getUserInfo().getUsername();
    } catch (KubernetesClientException | NullPointerException e) {
      throw unavailable(
          "this controller cannot learn which account it runs as (SelfSubjectReview: "
              + e.getMessage()
              + "), so it cannot ask an agent for a job's output.");
    }
    String[] parts =
        user.startsWith(SERVICE_ACCOUNT_PREFIX)
            ? user.substring(SERVICE_ACCOUNT_PREFIX.length()).split(":")
            : new String[0];
    if (parts.length != 2) {
      throw unavailable(
          "this controller runs as "
              + user
              + ", not as a service account, so it cannot show an agent a token of its own: run"
              + " it with the chart's controller account (kubectl octomy kubeconfig --for"
              + " controller writes a kubeconfig for it).");
    }
    account = parts;
    return parts;
  }

  private static VisibilityException unavailable(String message) {
    return new VisibilityException(503, "ServiceUnavailable", message);
  }
}
