package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Plain HTTPS requests to the embedded server, with its token and trusting exactly its certificate,
 * for what stock clients never send (hostile bodies, odd content types and query values).
 */
final class RawApi {

  /** One answer: status code and body; {@code json()} parses the body. */
  record Answer(int code, String body, List<String> warnings) {
    Answer(int code, String body) {
      this(code, body, List.of());
    }

    JsonNode json() {
      try {
        return new ObjectMapper().readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    /** The {@code reason} of a {@code Status} answer. */
    String reason() {
      return json().path("reason").asText();
    }
  }

  private final HttpClient http;
  private final URI base;
  private final String token;

  RawApi(EmbeddedApiServer server) {
    this(server, server.token());
  }

  /** With another bearer token than the kubeconfig's. */
  RawApi(EmbeddedApiServer server, String token) {
    try {
      this.http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .sslContext(KubectlE2E.trusting(server.certificatePem()))
              .connectTimeout(Duration.ofSeconds(10))
              .build();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    this.base = server.url();
    this.token = token;
  }

  Answer send(String method, String pathAndQuery, String contentType, String body) {
    return send(method, pathAndQuery, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  Answer send(String method, String pathAndQuery, String contentType, byte[] body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(pathAndQuery))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    try {
      HttpResponse<String> r =
          http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Answer(r.statusCode(), r.body(), r.headers().allValues("Warning"));
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + pathAndQuery + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Answer get(String pathAndQuery) {
    return send("GET", pathAndQuery, null, new byte[0]);
  }

  Answer post(String path, String json) {
    return send("POST", path, "application/json", json);
  }
}
