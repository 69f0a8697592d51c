package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The visibility API's APIService as the API server reports it, read with the user's own
 * credentials. Its {@code Available} condition is the aggregator's own view: while it is not True
 * the aggregator answers every visibility call 503 with no more than "service unavailable", so the
 * plugin reads it first (one cheap GET, at most two seconds) and says why and what to do instead.
 */
final class VisibilityApiService {

  static final String NAME = "v1alpha1.visibility.batch.octomy.io";
  static final long READ_SECONDS = 2;

  private final HttpClient http;
  private final String base;
  private final ObjectMapper json = new ObjectMapper();

  VisibilityApiService(HttpClient http, String base) {
    this.http = http;
    this.base = base;
  }

  /**
   * "REASON, message" of a condition {@code Available} that is not True; null when it is True, or
   * when it cannot be read (no such APIService, as in standalone mode, which serves the group
   * itself; a user not allowed to read it; no answer within two seconds).
   */
  String notAvailable() {
    try {
      HttpResponse<byte[]> r =
          http.sendAsync(
                  http.newHttpRequestBuilder()
                      .uri(base + "/apis/apiregistration.k8s.io/v1/apiservices/" + NAME)
                      .header("Accept", "application/json")
                      .timeout(READ_SECONDS, TimeUnit.SECONDS)
                      .build(),
                  byte[].class)
              .get(READ_SECONDS, TimeUnit.SECONDS);
      if (!r.isSuccessful()) {
        return null;
      }
      for (JsonNode c : json.readTree(r.body()).path("status").path("conditions")) {
        if ("Available".equals(c.path("type").asText())
            && !"True".equals(c.path("status").asText())) {
          return c.path("reason").asText() + ", " + c.path("message").asText().strip();
        }
      }
      return null;
    } catch (IOException | ExecutionException | TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * The one sentence for "nobody serves the API": why (the APIService's condition, the API server's
   * own words, either when known) and what to check.
   *
   * @param condition from {@link #notAvailable()}, or null
   * @param detail what the API server said about the call, or null
   */
  static String noServingController(String condition, String detail) {
    return "Error from server (ServiceUnavailable): no octomy-batch controller serves"
        + " visibility.batch.octomy.io/v1alpha1 now"
        + (condition == null ? "" : " (the APIService " + NAME + " is not Available: " + condition)
        + (condition == null ? "" : ")")
        + (detail == null || detail.isBlank() ? "" : " (the API server: " + detail.strip() + ")")
        + ". Check that the controller runs (kubectl -n octomy-system get pods -l"
        + " app.kubernetes.io/component=controller) and that the APIService is Available"
        + " (kubectl get apiservice "
        + NAME
        + "); for a controller outside the cluster see"
        + " docs/deployment.md#controller-and-agents-outside-the-cluster.";
  }
}
