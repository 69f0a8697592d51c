package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The plugin's one way to the server: the kubeconfig kubectl would use (KUBECONFIG, or {@code
 * --kubeconfig}, and {@code --context}), its credentials and certificates through the fabric8
 * client, and plain requests to {@code visibility.batch.octomy.io/v1alpha1}. A refusal comes back
 * as a {@link PluginException} carrying the server's own reason and sentence.
 */
final class PluginConnection implements AutoCloseable {

  static final String GROUP_VERSION_PATH = "/apis/visibility.batch.octomy.io/v1alpha1";
  static final String API_SERVICE = "v1alpha1.visibility.batch.octomy.io";

  private static final long TIMEOUT_SECONDS = 60;

  private final KubernetesClient client;
  private final String base;
  private final String defaultNamespace;
  private final ObjectMapper json = new ObjectMapper();

  PluginConnection(String kubeconfig, String context) {
    Config config =
        kubeconfig == null
            ? Config.autoConfigure(context)
            : Config.fromKubeconfig(context, new File(kubeconfig));
    // kubectl does not retry a 503; the client's default back-off turned "nobody serves the API"
    // into a 20-second wait before the same answer.
    config.setRequestRetryBackoffLimit(0);
    this.client = new KubernetesClientBuilder().withConfig(config).build();
    String master = config.getMasterUrl();
    this.base = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
    this.defaultNamespace = config.getNamespace() == null ? "default" : config.getNamespace();
  }

  /** The client that carries the kubeconfig's credentials; they never leave it. */
  HttpClient http() {
    return client.getHttpClient();
  }

  /** The API server's URL, without a trailing slash. */
  String base() {
    return base;
  }

  /** The namespace of the kubeconfig's current context, as kubectl picks it. */
  String defaultNamespace() {
    return defaultNamespace;
  }

  JsonNode getJson(String path) {
    return parse(send(request(path).header("Accept", "application/json").build()));
  }

  JsonNode postJson(String path, JsonNode body) {
    try {
      String text = json.writeValueAsString(body);
      return parse(
          send(
              request(path)
                  .header("Accept", "application/json")
                  .post("application/json", text)
                  .build()));
    } catch (IOException e) {
      throw new PluginException("cannot encode the request: " + e.getMessage());
    }
  }

  String getText(String path) {
    return send(request(path).header("Accept", "text/plain").build());
  }

  private HttpRequest.Builder request(String path) {
    return client
        .getHttpClient()
        .newHttpRequestBuilder()
        .uri(base + GROUP_VERSION_PATH + path)
        .timeout(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private String send(HttpRequest request) {
    HttpClient http = client.getHttpClient();
    HttpResponse<byte[]> r;
    try {
      r = http.sendAsync(request, byte[].class).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PluginException("interrupted");
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new PluginException(
          "cannot reach the server at " + base + ": " + cause.getMessage() + ".");
    }
    String body = r.body() == null ? "" : new String(r.body(), StandardCharsets.UTF_8);
    if (r.isSuccessful()) {
      return body;
    }
    throw refusal(r.code(), body);
  }

  /** kubectl's words for a refusal: "Error from server (Reason): message". */
  private PluginException refusal(int code, String body) {
    try {
      JsonNode status = json.readTree(body);
      if ("Status".equals(status.path("kind").asText())) {
        return new PluginException(
            "Error from server ("
                + status.path("reason").asText("code " + code)
                + "): "
                + status.path("message").asText());
      }
    } catch (IOException e) {
      // not a Status: said below
    }
    if (code == 503) {
      return new PluginException(
          "Error from server (ServiceUnavailable): no octomy-batch controller serves"
              + " visibility.batch.octomy.io/v1alpha1 now"
              + apiServiceState()
              + ". Check that the controller runs (kubectl -n octomy-system get pods -l"
              + " app.kubernetes.io/component=controller) and that the APIService is Available"
              + " (kubectl get apiservice "
              + API_SERVICE
              + "); docs/deployment.md says how a controller outside the cluster serves it.");
    }
    if (code == 404) {
      return new PluginException(
          "Error from server (NotFound): the server does not serve"
              + " visibility.batch.octomy.io/v1alpha1: is octomy-batch running there (standalone,"
              + " or the controller with its APIService)?");
    }
    return new PluginException("Error from server (code " + code + "): " + body.strip());
  }

  /**
   * ": the APIService says REASON: MESSAGE" when this user may read it, else nothing: the
   * aggregator's own 503 body says no more than "service unavailable".
   */
  private String apiServiceState() {
    try {
      HttpResponse<byte[]> r =
          client
              .getHttpClient()
              .sendAsync(
                  client
                      .getHttpClient()
                      .newHttpRequestBuilder()
                      .uri(base + "/apis/apiregistration.k8s.io/v1/apiservices/" + API_SERVICE)
                      .header("Accept", "application/json")
                      .timeout(2, TimeUnit.SECONDS)
                      .build(),
                  byte[].class)
              .get(2, TimeUnit.SECONDS);
      if (!r.isSuccessful()) {
        return "";
      }
      for (JsonNode c : json.readTree(r.body()).path("status").path("conditions")) {
        if ("Available".equals(c.path("type").asText())
            && !"True".equals(c.path("status").asText())) {
          return " (the APIService "
              + API_SERVICE
              + " is not Available: "
              + c.path("reason").asText()
              + ", "
              + c.path("message").asText().strip()
              + ")";
        }
      }
      return "";
    } catch (IOException | ExecutionException | TimeoutException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private JsonNode parse(String body) {
    try {
      return json.readTree(body);
    } catch (IOException e) {
      throw new PluginException("the server answered something that is not JSON: " + body);
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
