package io.octomy.batch.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What the plugin does with names that are not names: a name with a space, a query typed into a
 * name, a namespace that cannot be one: a sentence saying what a name is, exit 1, no request and no
 * stack trace; a good name reaches the server as one encoded path segment, its options as the
 * query.
 */
class PluginBadInputTest {

  private HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  @TempDir Path dir;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        x -> {
          requests.add(x.getRequestURI().getRawPath() + "?" + x.getRequestURI().getRawQuery());
          byte[] bytes = "hello\n".getBytes(StandardCharsets.UTF_8);
          x.getResponseHeaders().set("Content-Type", "text/plain");
          x.sendResponseHeaders(200, bytes.length);
          try (var out = x.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aNameWithASpaceIsASentenceNotAStackTrace() throws IOException {
    Run r = run("logs", "a b");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "error: \"a b\" is not a BatchJob name: a name is at most 253 lowercase letters,"
                + " digits, '-' and '.', starting and ending with a letter or digit (kubectl get bj"
                + " lists them).");
    assertThat(run("why", "a b").err()).startsWith("error: \"a b\" is not a BatchJob name");
    assertThat(requests).as("nothing is asked of the server").isEmpty();
  }

  @Test
  void aQueryTypedIntoTheNameIsRefusedWithTheFlagsThatAskIt() throws IOException {
    Run r = run("logs", "job?limitBytes=5");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err())
        .startsWith("error: \"job?limitBytes=5\" is not a BatchJob name")
        .contains(
            "options are flags, not part of the name (logs takes --tail N and --limit-bytes N)")
        .doesNotContain("\tat ");
    assertThat(run("logs", "job\n").err()).startsWith("error: \"job\\x0a\" is not a BatchJob");
    assertThat(requests).isEmpty();
  }

  @Test
  void aNamespaceThatCannotBeOneIsRefused() throws IOException {
    Run r = run("queue", "-n", "team/../other");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: \"team/../other\" is not a namespace: ");
    assertThat(requests).isEmpty();
  }

  @Test
  void aGoodNameIsOneSegmentAndItsOptionsTheQuery() throws IOException {
    Run r = run("logs", "solve-41.b", "--limit-bytes", "5");
    assertThat(r.code()).as(r.err()).isZero();
    // Before it, the plugin reads the APIService's condition (VisibilityApiService).
    assertThat(requests.stream().filter(p -> p.startsWith("/apis/visibility.batch.octomy.io/")))
        .containsExactly(
            "/apis/visibility.batch.octomy.io/v1alpha1/namespaces/team-a/joblogs/solve-41.b"
                + "?limitBytes=5");
  }

  @Test
  void encodingKeepsAnyTextOneSegment() {
    assertThat(PathSegments.encode("a b?c=5&d/e%f")).isEqualTo("a%20b%3Fc%3D5%26d%2Fe%25f");
    assertThat(PathSegments.encode("jöb")).isEqualTo("j%C3%B6b");
    assertThat(PathSegments.encode("solve-41.b_~")).isEqualTo("solve-41.b_~");
  }

  @Test
  void anAgentsKubeconfigNeedsANodeThatCanNameItsAccount() throws IOException {
    Run none = run("kubeconfig", "--for", "agent");
    assertThat(none.code()).isEqualTo(1);
    assertThat(none.err())
        .contains("--for agent needs --node NODE, the name of the agent's BatchNode");
    for (String bad : List.of("WS_7", "ws-7-", "w".repeat(240))) {
      Run r = run("kubeconfig", "--for", "agent", "--node", bad);
      assertThat(r.code()).as(bad).isEqualTo(1);
      assertThat(r.err())
          .as(bad)
          .contains(
              "cannot name the agent's ServiceAccount octomy-batch-agent-node-NODE: that must be a"
                  + " DNS subdomain of at most 253 characters");
    }
    assertThat(requests).isEmpty();
  }

  @Test
  void anUnexpectedFailureIsOneLineNotAStackTrace() throws IOException {
    Run r = runWith(dir.resolve("no-such-kubeconfig"), "logs", "job");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: ").doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
  }

  private record Run(int code, String err) {}

  private Run run(String... args) throws IOException {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: c, context: {cluster: c, user: u, namespace: team-a}}]
        current-context: c
        """
            .formatted(server.getAddress().getPort()));
    return runWith(kubeconfig, args);
  }

  private static Run runWith(Path kubeconfig, String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = OctomyPlugin.commandLine();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--kubeconfig";
    all[args.length + 1] = kubeconfig.toString();
    int code = cl.execute(all);
    return new Run(code, err.toString());
  }
}
