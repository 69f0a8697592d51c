package io.octomy.batch.evidence;

import io.octomy.batch.standalone.EmbeddedApiServer;
import io.octomy.batch.standalone.ServerLimits;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * (f) Attempts to exhaust the embedded API server, bounded in count and time, on 127.0.0.1: many
 * connections that never send a request (they must be closed after the header timeout), more
 * concurrent writes than the in-flight limit (the excess gets 429 with Retry-After), and a watch
 * whose client never reads while large objects are written (it must be ended, not buffered without
 * limit). After each, an ordinary request must be answered.
 */
final class ExhaustionFault {

  record Result(
      int idleOpened,
      int idleClosedByServer,
      int writes,
      int tooMany,
      int otherFailures,
      boolean stalledWatchEnded,
      boolean answersAfterwards) {

    boolean passed() {
      return idleClosedByServer == idleOpened
          && tooMany > 0
          && otherFailures == 0
          && stalledWatchEnded
          && answersAfterwards;
    }

    @Override
    public String toString() {
      return String.format(
          "exhaustion -> embedded API server: idle connections opened %d, closed by the server"
              + " after the header timeout %d; concurrent writes %d, answered 429 %d, other"
              + " failures %d; watch of a client that never reads ended %s; ordinary requests"
              + " answered afterwards %s",
          idleOpened,
          idleClosedByServer,
          writes,
          tooMany,
          otherFailures,
          stalledWatchEnded,
          answersAfterwards);
    }
  }

  private ExhaustionFault() {}

  static Result run(Path work, int idle, int writes) throws Exception {
    ServerLimits limits =
        ServerLimits.defaults()
            .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2))
            .withInFlight(400, 2);
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(
            work.resolve("state"), 0, StandaloneRuntime.productCrds(), limits)) {
      HostileWriteFault.Http http = new HostileWriteFault.Http(server);
      // 1. connections that never speak
      List<Socket> sockets = new ArrayList<>();
      for (int i = 0; i < idle; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
        s.setSoTimeout(10_000);
        sockets.add(s);
      }
      int closed = 0;
      for (Socket s : sockets) {
        try (s) {
          if (s.getInputStream().read() == -1) {
            closed++;
          }
        } catch (java.io.IOException e) {
          closed++; // reset by the server
        }
      }
      // 2. more writes at once than may be in flight
      String big = "x".repeat(512 * 1024);
      ExecutorService pool = Executors.newFixedThreadPool(16);
      List<Future<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < writes; i++) {
        String name = "w" + i;
        answers.add(
            pool.submit(
                () ->
                    http.send(
                            "POST",
                            "/api/v1/namespaces/default/configmaps",
                            "application/json",
                            ("{\"metadata\":{\"name\":\""
                                    + name
                                    + "\"},\"data\":{\"b\":\""
                                    + big
                                    + "\"}}")
                                .getBytes(StandardCharsets.UTF_8))
                        .code()));
      }
      int tooMany = 0;
      int other = 0;
      for (Future<Integer> f : answers) {
        int code = f.get();
        if (code == 429) {
          tooMany++;
        } else if (code != 201) {
          other++;
        }
      }
      pool.shutdown();
      // 3. a watch whose client never reads, while 40 objects of 1 MB each are written
      boolean ended = stalledWatchEnds(server, http);
      boolean answers2 = http.send("GET", "/version", null, new byte[0]).code() == 200;
      return new Result(idle, closed, writes, tooMany, other, ended, answers2);
    }
  }

  private static boolean stalledWatchEnds(EmbeddedApiServer server, HostileWriteFault.Http http)
      throws Exception {
    javax.net.ssl.SSLContext ctx = http.sslContext();
    try (Socket raw = new Socket("127.0.0.1", server.port());
        javax.net.ssl.SSLSocket tls =
            (javax.net.ssl.SSLSocket)
                ctx.getSocketFactory().createSocket(raw, "127.0.0.1", server.port(), true)) {
      tls.setReceiveBufferSize(4096);
      tls.getOutputStream()
          .write(
              ("GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion="
                      + server.resourceVersion()
                      + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                      + server.token()
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      tls.getOutputStream().flush();
      String blob = "y".repeat(1_000_000);
      for (int i = 0; i < 40; i++) {
        http.send(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            "application/json",
            ("{\"metadata\":{\"name\":\"big" + i + "\"},\"data\":{\"b\":\"" + blob + "\"}}")
                .getBytes(StandardCharsets.UTF_8));
      }
      // now read: the stream must end well before all 40 MB arrive
      tls.setSoTimeout(20_000);
      InputStream in = tls.getInputStream();
      byte[] buf = new byte[65536];
      long total = 0;
      try {
        int n;
        while ((n = in.read(buf)) != -1) {
          total += n;
          if (total > 39_000_000) {
            return false;
          }
        }
      } catch (java.io.IOException e) {
        return true; // closed by the server
      }
      return true;
    }
  }
}
