package io.octomy.batch.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * {@code /metrics} (Prometheus text), {@code /healthz} (the process answers) and {@code /readyz}
 * ({@link ControllerReadiness}: 503 with the reason while not ready).
 */
public final class HealthServer implements AutoCloseable {

  private final HttpServer server;

  public HealthServer(
      String host, int port, PrometheusMeterRegistry registry, Supplier<String> notReadyBecause)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(host, port), 0);
    server.createContext(
        "/metrics",
        ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.createContext("/healthz", ex -> reply(ex, 200, "text/plain", "ok\n"));
    server.createContext(
        "/readyz",
        ex -> {
          String why = notReadyBecause.get();
          reply(ex, why == null ? 200 : 503, "text/plain", why == null ? "ok\n" : why + "\n");
        });
    server.setExecutor(null);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void reply(HttpExchange ex, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
