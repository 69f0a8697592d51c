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
import java.util.concurrent.CompletableFuture;
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
  private static final long TIMEOUT_SECONDS = 60;

  /**
   * A call not answered by then is looked at again: if the APIService is no longer Available (its
   * replica went away mid-call), the plugin says so rather than wait for the aggregator's timeout.
   */
  private static final long RECHECK_SECONDS = 2;

  private final KubernetesClient client;
  private final String base;
  private final String defaultNamespace;
  private final ObjectMapper json = new ObjectMapper();
  private final VisibilityApiService apiService;
  private boolean apiServiceRead;

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
    this.apiService = new VisibilityApiService(client.getHttpClient(), base);
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
    if (!apiServiceRead) {
      // Once per command, before its first call: an APIService that is not Available is the
      // answer already, without a call the aggregator would refuse anyway.
      apiServiceRead = true;
      String condition = apiService.notAvailable();
      if (condition != null) {
        throw new PluginException(VisibilityApiService.noServingController(condition, null));
      }
    }
    HttpClient http = client.getHttpClient();
    CompletableFuture<HttpResponse<byte[]>> call = http.sendAsync(request, byte[].class);
    HttpResponse<byte[]> r;
    try {
      r = answerOf(call);
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

  private HttpResponse<byte[]> answerOf(CompletableFuture<HttpResponse<byte[]>> call)
      throws InterruptedException, ExecutionException, TimeoutException {
    try {
      return call.get(RECHECK_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException slow) {
      String condition = apiService.notAvailable();
      if (condition != null) {
        call.cancel(true);
        throw new PluginException(VisibilityApiService.noServingController(condition, null));
      }
      return call.get(TIMEOUT_SECONDS - RECHECK_SECONDS, TimeUnit.SECONDS);
    }
  }

  /**
   * kubectl's words for a refusal: "Error from server (Reason): message". A 503 that is not the
   * controller's own (the aggregator's "service unavailable", or its "error trying to reach
   * service") means no replica serves: said as one sentence with what to check.
   */
  private PluginException refusal(int code, String body) {
    JsonNode status = null;
    try {
      JsonNode read = json.readTree(body);
      status = read != null && "Status".equals(read.path("kind").asText()) ? read : null;
    } catch (IOException e) {
      // not a Status: said below
    }
    String message = status == null ? body : status.path("message").asText();
    if (code == 503 && (status == null || message.contains("trying to reach service"))) {
      return new PluginException(
          VisibilityApiService.noServingController(
              apiService.notAvailable(),
              "service unavailable".equals(message.strip()) ? null : message));
    }
    if (status != null) {
      return new PluginException(
          "Error from server (" + status.path("reason").asText("code " + code) + "): " + message);
    }
    if (code == 404) {
      return new PluginException(
          "Error from server (NotFound): the server does not serve"
              + " visibility.batch.octomy.io/v1alpha1: is octomy-batch running there (standalone,"
              + " or the controller with its APIService)?");
    }
    return new PluginException("Error from server (code " + code + "): " + body.strip());
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
