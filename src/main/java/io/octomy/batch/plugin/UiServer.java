package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The web server of {@code kubectl octomy ui}, on 127.0.0.1 only: the page's own files from the
 * jar, {@code /config.json} (the namespace to show first), and the read-only {@link ApiForwarder}.
 * A request whose Host is not this server's own address is refused, so a web site that rebinds its
 * name to 127.0.0.1 cannot read through it.
 */
final class UiServer implements AutoCloseable {

  private static final String FILES = "/io/octomy/batch/plugin/ui/";
  private static final String JS = "text/javascript; charset=utf-8";
  private static final Map<String, String> PAGES =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "ui.css", "text/css; charset=utf-8",
          "ui.js", JS,
          "dom.js", JS,
          "nodes.js", JS,
          "job.js", JS,
          "timeline.js", JS,
          "lanes.js", JS,
          "teams.js", JS);

  private final HttpServer server;
  private final ExecutorService workers;
  private final ApiForwarder forwarder;
  private final byte[] config;

  private UiServer(HttpServer server, ExecutorService workers, ApiForwarder forwarder, byte[] c) {
    this.server = server;
    this.workers = workers;
    this.forwarder = forwarder;
    this.config = c;
  }

  /**
   * Starts serving on 127.0.0.1:{@code port} (0: a free port).
   *
   * @param namespace the namespace the page shows first
   */
  static UiServer start(HttpClient upstream, String base, String namespace, int port)
      throws IOException {
    return start(upstream, base, namespace, port, ApiForwarder.Bounds.DEFAULT);
  }

  static UiServer start(
      HttpClient upstream, String base, String namespace, int port, ApiForwarder.Bounds bounds)
      throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    // a few workers: each request is bounded by the forwarder's timeouts and each watch by
    // WatchStream.MAX_SECONDS, so none is held forever; a page holds one watch at a time
    ExecutorService workers =
        Executors.newFixedThreadPool(
            16,
            r -> {
              Thread t = new Thread(r, "octomy-ui");
              t.setDaemon(true);
              return t;
            });
    byte[] config =
        new ObjectMapper().writeValueAsBytes(Map.of("namespace", namespace, "pollSeconds", 2));
    UiServer ui = new UiServer(server, workers, new ApiForwarder(upstream, base, bounds), config);
    server.createContext("/", ui::handle);
    server.setExecutor(workers);
    server.start();
    return ui;
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      if (!ownHost(x.getRequestHeaders().getFirst("Host"))) {
        UiAnswers.status(
            x,
            403,
            "Forbidden",
            "this server answers only at " + url() + " (the Host header names another).");
        return;
      }
      String path = x.getRequestURI().getRawPath();
      if (ApiForwarder.serves(path)) {
        forwarder.handle(x);
        return;
      }
      if (!x.getRequestMethod().equals("GET")) {
        x.getResponseHeaders().set("Allow", "GET");
        UiAnswers.status(x, 405, "MethodNotAllowed", "the page's files are only read (GET).");
        return;
      }
      if (path.equals("/config.json")) {
        UiAnswers.send(x, 200, "application/json", config);
        return;
      }
      String name = path.equals("/") ? "index.html" : path.substring(1);
      String type = PAGES.get(name);
      if (type == null) {
        UiAnswers.status(x, 404, "NotFound", "no page " + path + " here: open " + url() + ".");
        return;
      }
      try (InputStream in = UiServer.class.getResourceAsStream(FILES + name)) {
        if (in == null) {
          UiAnswers.status(x, 500, "InternalError", "the jar lacks " + FILES + name + ".");
          return;
        }
        UiAnswers.send(x, 200, type, in.readAllBytes());
      }
    }
  }

  private boolean ownHost(String host) {
    int port = server.getAddress().getPort();
    return host != null && (host.equals("127.0.0.1:" + port) || host.equals("localhost:" + port));
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }
}
