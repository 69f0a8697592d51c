package io.octomy.batch.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * kubectl octomy ui's forwarder between a browser and an API server that wants a bearer token: a
 * GET reaches the API server with the kubeconfig's token, the browser gets the body and nothing of
 * the token or of the upstream's headers; every other method is refused with 405 and never sent on;
 * a slow or oversized answer ends in a Status within the bounds; a foreign Host is refused.
 */
class UiForwarderIT {

  private static final String TOKEN = "ui-forwarder-token-7f3a9c";
  private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
  private static final String BODY =
      "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"items\":[]}";

  @TempDir Path dir;

  private HttpServer api;
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private PluginConnection connection;
  private UiServer ui;
  private final HttpClient browser =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() throws IOException {
    api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    api.createContext(
        "/",
        x -> {
          seen.add(x.getRequestMethod() + " " + x.getRequestURI());
          authorizations.add(String.valueOf(x.getRequestHeaders().getFirst("Authorization")));
          String path = x.getRequestURI().getPath();
          if (path.equals("/apis/slow")) {
            sleep(5_000);
            answer(x, 200, BODY.getBytes(StandardCharsets.UTF_8));
          } else if (path.equals("/apis/trickle")) {
            x.sendResponseHeaders(200, 0);
            try (OutputStream out = x.getResponseBody()) {
              out.write('{');
              out.flush();
              sleep(5_000);
            }
          } else if (path.equals("/apis/steady")) {
            // a large answer sent steadily: longer in all than the idle bound, never idle so long
            x.getResponseHeaders().set("Content-Type", "application/json");
            x.sendResponseHeaders(200, 0);
            try (OutputStream out = x.getResponseBody()) {
              out.write("[0".getBytes(StandardCharsets.UTF_8));
              for (int i = 1; i <= 8; i++) {
                out.flush();
                sleep(300);
                out.write((",\"" + "x".repeat(20_000) + "\"").getBytes(StandardCharsets.UTF_8));
              }
              out.write(']');
            }
          } else if (path.equals("/apis/dripping")) {
            // never idle for a second, but endless: the whole bound ends it
            x.sendResponseHeaders(200, 0);
            try (OutputStream out = x.getResponseBody()) {
              for (int i = 0; i < 100; i++) {
                out.write(' ');
                out.flush();
                sleep(300);
              }
            } catch (IOException gone) {
              // the forwarder gave up on it
            }
          } else if (path.equals("/apis/watched")) {
            x.getResponseHeaders().set("Content-Type", "application/json");
            x.sendResponseHeaders(200, 0);
            try (OutputStream out = x.getResponseBody()) {
              out.write("{\"type\":\"ADDED\"}\n".getBytes(StandardCharsets.UTF_8));
              out.flush();
              sleep(1_500);
              out.write("{\"type\":\"MODIFIED\"}\n".getBytes(StandardCharsets.UTF_8));
            }
          } else if (path.equals("/apis/huge")) {
            answer(x, 200, new byte[3 << 20]);
          } else {
            x.getResponseHeaders().add("Set-Cookie", "session=" + TOKEN);
            x.getResponseHeaders().add("WWW-Authenticate", "Bearer realm=" + TOKEN);
            x.getResponseHeaders().add("X-Echo-Authorization", authorizations.get(0));
            answer(x, 200, BODY.getBytes(StandardCharsets.UTF_8));
          }
        });
    api.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    api.start();
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "http://127.0.0.1:%d"}
        users:
        - name: u
          user: {token: %s}
        contexts:
        - name: x
          context: {cluster: c, user: u, namespace: default}
        current-context: x
        """
            .formatted(api.getAddress().getPort(), TOKEN));
    connection = new PluginConnection(kubeconfig.toString(), null);
    ui =
        UiServer.start(
            connection.http(),
            connection.base(),
            "default",
            0,
            new ApiForwarder.Bounds(
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(6), 1 << 20));
  }

  @AfterEach
  void stop() {
    ui.close();
    connection.close();
    api.stop(0);
  }

  private static void answer(HttpExchange x, int code, byte[] body) throws IOException {
    x.getResponseHeaders().set("Content-Type", "application/json");
    x.sendResponseHeaders(code, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    return send(method, path, Map.of(ApiForwarder.PAGE_HEADER, "1"));
  }

  private HttpResponse<String> send(String method, String path, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(ui.url().resolve(path));
    headers.forEach(b::header);
    b.method(method, HttpRequest.BodyPublishers.ofString(method.equals("GET") ? "" : "{}"));
    return browser.send(
        b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Everything a browser receives: the status line's code, every header, the body. */
  private static String everything(HttpResponse<String> r) {
    return r.statusCode() + " " + r.headers().map() + " " + r.body();
  }

  @Test
  void aGetIsForwardedWithTheTokenWhichNeverReachesTheBrowser() throws Exception {
    HttpResponse<String> r = send("GET", CONFIGMAPS + "?limit=5");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(BODY);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(seen).containsExactly("GET " + CONFIGMAPS + "?limit=5");
    assertThat(authorizations)
        .as("the API server got the kubeconfig's token")
        .containsExactly("Bearer " + TOKEN);
    assertThat(everything(r)).doesNotContain(TOKEN).doesNotContainIgnoringCase("authorization");
    assertThat(r.headers().map().keySet())
        .doesNotContain("set-cookie", "www-authenticate", "x-echo-authorization");
  }

  @Test
  void everyOtherMethodIsRefusedWith405AndNeverSentOn() throws Exception {
    for (String method : List.of("POST", "PUT", "PATCH", "DELETE")) {
      HttpResponse<String> r = send(method, CONFIGMAPS);
      assertThat(r.statusCode()).as(method).isEqualTo(405);
      assertThat(r.headers().firstValue("Allow")).hasValue("GET");
      assertThat(r.body())
          .contains("\"kind\":\"Status\"")
          .contains("kubectl octomy ui only reads: " + method + " is refused");
    }
    assertThat(seen).as("nothing but reads reaches the API server").isEmpty();
  }

  @Test
  void aReadAnotherSiteCouldMakeIsRefusedAndNeverSentOn() throws Exception {
    HttpResponse<String> bare = send("GET", CONFIGMAPS, Map.of());
    assertThat(bare.statusCode()).isEqualTo(403);
    assertThat(bare.body()).contains("answers only its own pages (they send X-Octomy-UI)");
    HttpResponse<String> crossSite =
        send(
            "GET",
            CONFIGMAPS,
            Map.of(ApiForwarder.PAGE_HEADER, "1", "Sec-Fetch-Site", "cross-site"));
    assertThat(crossSite.statusCode()).isEqualTo(403);
    for (String through :
        List.of(
            "/api/v1/namespaces/default/services/web:80/proxy/admin/reset",
            "/api/v1/namespaces/default/pods/p/proxy",
            "/api/v1/namespaces/default/pods/p/exec?command=rm",
            "/api/v1/namespaces/default/pods/p/attach",
            "/api/v1/namespaces/default/pods/p/portforward",
            "/api/v1/nodes/n/proxy/logs/")) {
      HttpResponse<String> r = send("GET", through);
      assertThat(r.statusCode()).as(through).isEqualTo(403);
      assertThat(r.body()).contains("reads objects, not through them");
    }
    assertThat(seen).as("none of them reached the API server").isEmpty();
  }

  @Test
  void aWatchIsPassedOnEventByEventAndBounded() throws Exception {
    long start = System.nanoTime();
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    HttpResponse<java.util.stream.Stream<String>> r =
        browser.send(
            HttpRequest.newBuilder(
                    ui.url().resolve("/apis/watched?watch=true&timeoutSeconds=86400"))
                .header(ApiForwarder.PAGE_HEADER, "1")
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    List<String> events = new ArrayList<>();
    r.body()
        .forEach(
            line -> {
              arrivals.add((System.nanoTime() - start) / 1_000_000);
              events.add(line);
            });
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(events).containsExactly("{\"type\":\"ADDED\"}", "{\"type\":\"MODIFIED\"}");
    // the first event reached the browser while the API server still held the second, and the
    // watch outlived the bound of a plain read (1 s here)
    assertThat(arrivals.get(1) - arrivals.get(0)).isGreaterThan(1_000);
    assertThat(seen)
        .containsExactly("GET /apis/watched?watch=true&timeoutSeconds=" + WatchStream.MAX_SECONDS);
    assertThat(r.headers().map().toString()).doesNotContain(TOKEN);
  }

  @Test
  void thePagesCarryNoCredential() throws Exception {
    for (String page :
        List.of(
            "/",
            "/ui.js",
            "/dom.js",
            "/nodes.js",
            "/job.js",
            "/timeline.js",
            "/teams.js",
            "/ui.css",
            "/config.json")) {
      HttpResponse<String> r = send("GET", page);
      assertThat(r.statusCode()).as(page).isEqualTo(200);
      assertThat(everything(r)).as(page).doesNotContain(TOKEN);
    }
    assertThat(send("GET", "/config.json").body()).contains("\"namespace\":\"default\"");
    assertThat(send("GET", "/nothing.html").statusCode()).isEqualTo(404);
  }

  @Test
  void aSlowOrHugeAnswerEndsWithinTheBounds() throws Exception {
    long started = System.nanoTime();
    HttpResponse<String> slow = send("GET", "/apis/slow");
    assertThat(slow.statusCode()).isEqualTo(504);
    assertThat(slow.body()).contains("did not answer in time");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));

    started = System.nanoTime();
    HttpResponse<String> trickle = send("GET", "/apis/trickle");
    assertThat(trickle.statusCode()).as(trickle.body()).isEqualTo(504);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));

    started = System.nanoTime();
    HttpResponse<String> dripping = send("GET", "/apis/dripping");
    assertThat(dripping.statusCode()).as(dripping.body()).isEqualTo(504);
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isBetween(Duration.ofSeconds(6), Duration.ofSeconds(9));

    HttpResponse<String> huge = send("GET", "/apis/huge");
    assertThat(huge.statusCode()).isEqualTo(502);
    assertThat(huge.body()).contains("is over 1 MiB");
  }

  @Test
  void anAnswerSentSteadilyIsPassedOnWholeThoughItTakesLongerThanTheIdleBound() throws Exception {
    long started = System.nanoTime();
    HttpResponse<String> steady = send("GET", "/apis/steady");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofSeconds(2));
    assertThat(steady.statusCode()).as(steady.body().substring(0, 200)).isEqualTo(200);
    assertThat(steady.body().length()).isEqualTo(3 + 8 * 20_003);
    assertThat(steady.body().startsWith("[0,\"x") && steady.body().endsWith("x\"]")).isTrue();
  }

  @Test
  void anUnreachableApiServerIsASentence() throws Exception {
    api.stop(0);
    HttpResponse<String> r = send("GET", CONFIGMAPS);
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body())
        .contains("cannot reach the API server at " + connection.base())
        .contains("is it running, and is the kubeconfig's server address right?");
  }

  @Test
  void aForeignHostIsRefused() throws Exception {
    int port = ui.url().getPort();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket
          .getOutputStream()
          .write(
              ("GET "
                      + CONFIGMAPS
                      + " HTTP/1.1\r\nHost: rebound.example:"
                      + port
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      String reply = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(reply).startsWith("HTTP/1.1 403").contains("answers only at");
    }
    assertThat(seen).isEmpty();
  }

  private record Run(int code, String out, String err) {}

  private Run ui(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = OctomyPlugin.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    List<String> all =
        new java.util.ArrayList<>(
            List.of("ui", "--kubeconfig", dir.resolve("kubeconfig").toString()));
    all.addAll(List.of(args));
    int code = cl.execute(all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void badFlagsAndATakenPortAreSentences() throws Exception {
    Run port = ui("--port", "70000");
    assertThat(port.code()).isEqualTo(1);
    assertThat(port.err().strip())
        .isEqualTo(
            "error: --port 70000 is not a port: write 1-65535, or leave it out for a free one.");
    Run output = ui("-o", "json");
    assertThat(output.code()).isEqualTo(1);
    assertThat(output.err().strip())
        .isEqualTo("error: ui serves pages, it prints no objects: leave -o out.");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Run busy = ui("--port", String.valueOf(taken.getLocalPort()));
      assertThat(busy.code()).isEqualTo(1);
      assertThat(busy.err().strip())
          .isEqualTo(
              "error: port "
                  + taken.getLocalPort()
                  + " on 127.0.0.1 is taken: choose another with --port, or leave --port out for a"
                  + " free one.");
    }
    assertThat(seen).as("no flag that is refused reads anything").isEmpty();
  }
}
