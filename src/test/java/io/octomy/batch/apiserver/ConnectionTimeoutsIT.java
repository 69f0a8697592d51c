package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection timeouts, one connection at a time, against a server with short ones (header 1 s,
 * idle 2 s; the defaults are 32 s and 90 s, checked against docs/standalone.md in {@code
 * ServerLimitsTest}): a connection is closed when, and not before, its timeout is up; a watch is
 * never idle however quiet. The same under load (thousands of connections) is the fault suite's
 * exhaustion scenario.
 */
class ConnectionTimeoutsIT {

  private static final Duration HEADER = Duration.ofSeconds(1);
  private static final Duration IDLE = Duration.ofSeconds(2);

  /** The timeouts are checked by a sweep every quarter of the shorter one, plus scheduling. */
  private static final Duration SLACK = Duration.ofMillis(1200);

  /**
   * The server starts a connection's clock when it accepts it or ends its last answer, a little
   * before the client starts its own.
   */
  private static final Duration EARLY = Duration.ofMillis(300);

  @TempDir static Path dir;
  static EmbeddedApiServer server;
  static SSLContext tls;

  @BeforeAll
  static void start() throws Exception {
    server =
        EmbeddedApiServer.start(
            dir, 0, List.of(), ServerLimits.defaults().withTimeouts(HEADER, IDLE));
    tls = KubectlE2E.trusting(server.certificatePem());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void aConnectionThatNeverStartsTlsIsClosedAtTheHeaderTimeout() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", server.port()));
      long t0 = System.nanoTime();
      s.setSoTimeout(10_000);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
      assertThat(since(t0)).isBetween(HEADER.minus(EARLY), HEADER.plus(SLACK));
    }
  }

  @Test
  void headersTrickledInAreCutOffAtTheHeaderTimeoutUnanswered() throws Exception {
    try (SSLSocket s = connect()) {
      long t0 = System.nanoTime();
      OutputStream out = s.getOutputStream();
      out.write(ascii("GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
      s.setSoTimeout(100);
      int line = 0;
      String received = null;
      while (received == null && since(t0).compareTo(Duration.ofSeconds(10)) < 0) {
        try {
          out.write(ascii("X-Slow-" + line++ + ": x\r\n"));
          out.flush();
          received = readAll(s.getInputStream());
        } catch (SocketTimeoutException e) {
          // still open: trickle on
        } catch (IOException e) {
          received = "";
        }
      }
      assertThat(received).as("no answer, the connection is just closed").isEmpty();
      assertThat(since(t0)).isBetween(HEADER.minus(EARLY), HEADER.plus(SLACK));
    }
  }

  @Test
  void aKeepAliveConnectionIsClosedAfterTheIdleTimeoutNotTheHeaderTimeout() throws Exception {
    try (SSLSocket s = connect()) {
      s.getOutputStream()
          .write(
              ascii(
                  "GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                      + server.token()
                      + "\r\n\r\n"));
      s.setSoTimeout(5_000);
      String head = readHead(s.getInputStream());
      assertThat(head).startsWith("HTTP/1.1 200");
      s.getInputStream().readNBytes(contentLength(head));
      long t0 = System.nanoTime();
      s.setSoTimeout((int) IDLE.toMillis() - 300);
      assertThat(stillOpen(s)).as("open past the header timeout, within the idle one").isTrue();
      s.setSoTimeout(10_000);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
      assertThat(since(t0)).isBetween(IDLE.minus(EARLY), IDLE.plus(SLACK));
    }
  }

  @Test
  void aQuietWatchIsNotIdle() throws Exception {
    try (SSLSocket s = connect()) {
      s.getOutputStream()
          .write(
              ascii(
                  "GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion="
                      + server.resourceVersion()
                      + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                      + server.token()
                      + "\r\n\r\n"));
      s.setSoTimeout(5_000);
      assertThat(readHead(s.getInputStream())).startsWith("HTTP/1.1 200");
      s.setSoTimeout((int) IDLE.plus(SLACK).plus(SLACK).toMillis());
      assertThat(stillOpen(s))
          .as("a watch with no events for longer than the idle timeout")
          .isTrue();
      new RawApi(server)
          .post("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"late\"}}");
      s.setSoTimeout(5_000);
      byte[] chunk = new byte[4096];
      int n = s.getInputStream().read(chunk);
      assertThat(new String(chunk, 0, Math.max(n, 0), StandardCharsets.UTF_8))
          .contains("\"ADDED\"")
          .contains("\"late\"");
    }
  }

  @Test
  void aClientThatStopsReadingALargeListIsClosedAtTheIdleTimeoutAndOthersAreServed()
      throws Exception {
    // 200 objects of 100 KB: a 20 MB list, more than the socket buffers and the write queue hold
    RawApi api = new RawApi(server);
    String maps = "/api/v1/namespaces/default/configmaps";
    String data = "x".repeat(100_000);
    for (int i = 0; i < 200; i++) {
      RawApi.Answer made =
          api.post(
              maps,
              "{\"metadata\":{\"name\":\"big-"
                  + i
                  + "\",\"labels\":{\"case\":\"stalled\"}},\"data\":{\"v\":\""
                  + data
                  + "\"}}");
      assertThat(made.code()).as(made.body()).isEqualTo(201);
    }
    String list = maps + "?labelSelector=case%3Dstalled";
    try (SSLSocket s = connect()) {
      String head = get(s, list);
      assertThat(head).startsWith("HTTP/1.1 200");
      int length = contentLength(head);
      assertThat(length).isGreaterThan(20_000_000);
      s.getInputStream().readNBytes(1000);

      // while this client reads nothing, others are answered, the same list included, and so
      // while more such clients than the server has workers (8) read nothing either: a reader
      // that stops holds its piece, not a worker
      List<SSLSocket> alsoStalled = new ArrayList<>();
      try {
        for (int i = 0; i < 10; i++) {
          SSLSocket other = connect();
          alsoStalled.add(other);
          assertThat(get(other, list)).startsWith("HTTP/1.1 200");
        }
        long t0 = System.nanoTime();
        RawApi.Answer whole = api.get(list);
        assertThat(whole.code()).isEqualTo(200);
        assertThat(whole.json().path("items").size()).isEqualTo(200);
        assertThat(since(t0)).as("answered before the stalled ones time out").isLessThan(IDLE);
      } finally {
        for (SSLSocket other : alsoStalled) {
          other.close();
        }
      }

      Thread.sleep(IDLE.plus(SLACK).plus(SLACK).toMillis());
      long rest = s.getInputStream().transferTo(OutputStream.nullOutputStream());
      assertThat(1000 + rest)
          .as("the server closed the connection before the answer was all sent")
          .isLessThan(length);
    }
    assertThat(api.get("/version").code()).isEqualTo(200);
  }

  /**
   * Sends a GET of {@code path} with the server's token on {@code s}; returns the answer's head.
   */
  private static String get(SSLSocket s, String path) throws IOException {
    s.getOutputStream()
        .write(
            ascii(
                "GET "
                    + path
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + server.token()
                    + "\r\n\r\n"));
    s.setSoTimeout(10_000);
    return readHead(s.getInputStream());
  }

  private static SSLSocket connect() throws IOException {
    Socket raw = new Socket("127.0.0.1", server.port());
    SSLSocket s =
        (SSLSocket) tls.getSocketFactory().createSocket(raw, "127.0.0.1", server.port(), true);
    s.startHandshake();
    return s;
  }

  /** True when nothing arrived and the connection stayed open for the socket's read timeout. */
  private static boolean stillOpen(Socket s) throws IOException {
    try {
      s.getInputStream().read();
      return false;
    } catch (SocketTimeoutException e) {
      return true;
    }
  }

  private static String readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toString(StandardCharsets.UTF_8);
  }

  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        break;
      }
      head.append((char) c);
    }
    return head.toString();
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        return Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    throw new AssertionError("no Content-Length in " + head);
  }

  private static Duration since(long t0) {
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
