package io.octomy.batch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The API server's audit log (one JSON event per request of every identity under test): who asked
 * for what, and the answer's code. It is how the tier counts refused requests.
 */
final class AuditLog {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request as the server saw it. */
  record Request(String user, String verb, String uri, int code, String podName, String reason) {
    @Override
    public String toString() {
      return code + " " + verb + " " + uri + " by " + user + " (" + podName + "): " + reason;
    }
  }

  private AuditLog() {}

  /** Every completed request made by {@code user} (a user name, e.g. a service account's). */
  static List<Request> requestsOf(Path log, String user) {
    List<Request> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(log)) {
        JsonNode e = JSON.readTree(line);
        if (!"ResponseComplete".equals(e.path("stage").asText())
            || !user.equals(e.path("user").path("username").asText())) {
          continue;
        }
        JsonNode pod = e.path("user").path("extra").path("authentication.kubernetes.io/pod-name");
        out.add(
            new Request(
                user,
                e.path("verb").asText(),
                e.path("requestURI").asText(),
                e.path("responseStatus").path("code").asInt(),
                pod.isArray() && !pod.isEmpty() ? pod.get(0).asText() : "",
                e.path("responseStatus").path("message").asText()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The requests of {@code user} the server refused with 403. */
  static List<Request> forbidden(Path log, String user) {
    return requestsOf(log, user).stream().filter(r -> r.code() == 403).toList();
  }
}
