package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Every answer of {@code kubectl octomy ui} goes out through here, with the same few headers: the
 * body's type, no caching, and a content policy that lets the page load only its own files and talk
 * only to this server.
 */
final class UiAnswers {

  static final String CONTENT_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private static final ObjectMapper JSON = new ObjectMapper();

  private UiAnswers() {}

  static void send(HttpExchange x, int code, String contentType, byte[] body) throws IOException {
    headers(x, contentType);
    x.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  static void headers(HttpExchange x, String contentType) {
    var h = x.getResponseHeaders();
    h.set("Content-Type", contentType);
    h.set("Cache-Control", "no-store");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    h.set("Content-Security-Policy", CONTENT_POLICY);
  }

  /** A refusal as the API server words its own: a {@code Status} the page shows as it is. */
  static void status(HttpExchange x, int code, String reason, String message) throws IOException {
    ObjectNode s = JSON.createObjectNode();
    s.put("kind", "Status").put("apiVersion", "v1").putObject("metadata");
    s.put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
    send(x, code, "application/json", JSON.writeValueAsBytes(s));
  }
}
