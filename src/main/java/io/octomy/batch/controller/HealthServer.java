package io.octomy.batch.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * {@code /metrics} (Prometheus text), {@code /healthz} (the process answers) and {@code /readyz}
 * (caches synced).
 */
public final class HealthServer implements AutoCloseable {

  private final HttpServer server;

  public HealthServer(
      String host, int port, PrometheusMeterRegistry registry, BooleanSupplier ready)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(host, port), 0);
    server.createContext(
        "/metrics",
        ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.createContext("/healthz", ex -> reply(ex, 200, "text/plain", "ok\n"));
    server.createContext(
        "/readyz",
        ex -> {
          boolean ok = ready.getAsBoolean();
          reply(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "caches not synced yet\n");
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
