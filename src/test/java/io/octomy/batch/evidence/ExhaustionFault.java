package io.octomy.batch.evidence;

import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.apiserver.ServerLimits;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.ssl.SSLSocket;

/**
 * (f) Attempts to exhaust the embedded API server, bounded in count and time, on 127.0.0.1, each
 * checked against the limit it must meet:
 *
 * <ol>
 *   <li>connections that never start TLS, and TLS connections that trickle their request headers
 *       (one header line every 200 ms): none is closed before the header timeout, all are closed by
 *       the server soon after it, and none gets an answer;
 *   <li>more concurrent writes and lists than the in-flight limits allow, a quarter of the writes
 *       with bodies over the body limit (half with a Content-Length, half chunked): every answer is
 *       201/200, 429 with {@code Retry-After: 1} and reason TooManyRequests, or 413 for the large
 *       bodies; afterwards every acknowledged object is there and sequential writes all succeed (no
 *       in-flight slot leaked);
 *   <li>a watch whose client never reads while 40 objects of 1 MB are written: the server drops
 *       that connection once its queue for it is full, rather than buffering all 40 MB.
 * </ol>
 *
 * After all of it, a new client's ordinary requests are answered.
 */
final class ExhaustionFault {

  record Result(
      int silentOpened,
      int slowOpened,
      int closedBeforeHeaderTimeout,
      int notClosedAfterHeaderTimeout,
      int answeredWithoutHeaders,
      Map<Integer, Integer> writeCodes,
      Map<Integer, Integer> listCodes,
      int unexpectedAnswers,
      int acknowledgedMissing,
      int sequentialWritesRefused,
      long stalledWatchBytesRead,
      boolean stalledWatchDropped,
      boolean answersAfterwards) {

    boolean passed() {
      return closedBeforeHeaderTimeout == 0
          && notClosedAfterHeaderTimeout == 0
          && answeredWithoutHeaders == 0
          && writeCodes.getOrDefault(429, 0) > 0
          && writeCodes.getOrDefault(413, 0) > 0
          && listCodes.getOrDefault(429, 0) > 0
          && unexpectedAnswers == 0
          && acknowledgedMissing == 0
          && sequentialWritesRefused == 0
          && stalledWatchDropped
          && answersAfterwards;
    }

    @Override
    public String toString() {
      return String.format(
          "exhaustion -> embedded API server: connections that never start TLS %d and that"
              + " trickle headers %d: closed before the header timeout %d, still open after it %d,"
              + " answered %d; concurrent writes by status %s, concurrent lists by status %s,"
              + " answers outside 201/200, 413, 429+Retry-After %d; acknowledged objects missing"
              + " %d; sequential writes refused afterwards %d; watch of a client that never"
              + " reads: dropped %s after %d of 40,000,000 bytes; a new client answered afterwards"
              + " %s",
          silentOpened,
          slowOpened,
          closedBeforeHeaderTimeout,
          notClosedAfterHeaderTimeout,
          answeredWithoutHeaders,
          writeCodes,
          listCodes,
          unexpectedAnswers,
          acknowledgedMissing,
          sequentialWritesRefused,
          stalledWatchDropped,
          stalledWatchBytesRead,
          answersAfterwards);
    }
  }

  private static final String CM = "/api/v1/namespaces/default/configmaps";
  private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(3);
  private static final int OVER_BODY_LIMIT = 4 * 1024 * 1024;

  private ExhaustionFault() {}

  static Result run(Path work, int silent, int slow, int writes) throws Exception {
    ServerLimits limits =
        ServerLimits.defaults()
            .withTimeouts(HEADER_TIMEOUT, Duration.ofSeconds(60))
            .withInFlight(2, 2);
    try (EmbeddedApiServer server =
        EmbeddedApiServer.start(
            work.resolve("state"), 0, StandaloneRuntime.productCrds(), limits)) {
      RawHttps http = new RawHttps(server);
      Connections c = connectionsAreClosedAtTheHeaderTimeout(http, silent, slow);
      Load load = loadIsBoundedByTheLimits(http, writes);
      long[] watched = {0};
      boolean dropped = stalledWatchIsDropped(server, http, watched);
      RawHttps fresh = new RawHttps(server);
      boolean answers =
          fresh.send("GET", "/version", null, new byte[0]).code() == 200
              && fresh.send("GET", CM + "?limit=1", null, new byte[0]).code() == 200;
      return new Result(
          silent,
          slow,
          c.closedEarly,
          c.notClosed,
          c.answered,
          load.writeCodes,
          load.listCodes,
          load.unexpected,
          load.missing,
          load.sequentialRefused,
          watched[0],
          dropped,
          answers);
    }
  }

  private record Connections(int closedEarly, int notClosed, int answered) {}

  private static Connections connectionsAreClosedAtTheHeaderTimeout(
      RawHttps http, int silent, int slow) throws Exception {
    long header = HEADER_TIMEOUT.toNanos();
    List<SocketChannel> quiet = new ArrayList<>();
    List<Long> quietSince = new ArrayList<>();
    for (int i = 0; i < silent; i++) {
      SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", http.port()));
      ch.configureBlocking(false);
      quiet.add(ch);
      quietSince.add(System.nanoTime());
    }
    List<SSLSocket> trickling = new ArrayList<>();
    List<Long> tricklingSince = new ArrayList<>();
    for (int i = 0; i < slow; i++) {
      SSLSocket s = http.tls(0);
      s.getOutputStream()
          .write(
              "GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      s.setSoTimeout(1);
      trickling.add(s);
      tricklingSince.add(System.nanoTime());
    }
    int closedEarly = 0;
    int answered = 0;
    long last = System.nanoTime();
    // trickle until every connection is past its header timeout, checking that none is closed
    // while it is still within it
    long until = last + header + Duration.ofMillis(1500).toNanos();
    int line = 0;
    while (System.nanoTime() < until) {
      long now = System.nanoTime();
      for (int i = 0; i < trickling.size(); i++) {
        SSLSocket s = trickling.get(i);
        if (s.isClosed()) {
          continue;
        }
        boolean within = now - tricklingSince.get(i) < header - Duration.ofMillis(300).toNanos();
        State st = state(s);
        if (st == State.ANSWERED) {
          answered++;
          s.close();
        } else if (st == State.CLOSED) {
          closedEarly += within ? 1 : 0;
          s.close();
        } else {
          try {
            s.getOutputStream()
                .write(("X-Slow-" + line + ": x\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
          } catch (IOException e) {
            closedEarly += within ? 1 : 0;
            s.close();
          }
        }
      }
      for (int i = 0; i < quiet.size(); i++) {
        SocketChannel ch = quiet.get(i);
        if (ch.isOpen() && closed(ch)) {
          closedEarly +=
              now - quietSince.get(i) < header - Duration.ofMillis(300).toNanos() ? 1 : 0;
          ch.close();
        }
      }
      line++;
      Thread.sleep(200);
    }
    int notClosed = 0;
    for (SSLSocket s : trickling) {
      if (!s.isClosed()) {
        State st = state(s);
        answered += st == State.ANSWERED ? 1 : 0;
        notClosed += st == State.OPEN ? 1 : 0;
        s.close();
      }
    }
    for (SocketChannel ch : quiet) {
      if (ch.isOpen()) {
        notClosed += closed(ch) ? 0 : 1;
        ch.close();
      }
    }
    return new Connections(closedEarly, notClosed, answered);
  }

  private enum State {
    OPEN,
    CLOSED,
    ANSWERED
  }

  private static State state(SSLSocket s) {
    try {
      return s.getInputStream().read() == -1 ? State.CLOSED : State.ANSWERED;
    } catch (SocketTimeoutException e) {
      return State.OPEN;
    } catch (IOException e) {
      return State.CLOSED;
    }
  }

  private static boolean closed(SocketChannel ch) {
    try {
      return ch.read(ByteBuffer.allocate(1)) == -1;
    } catch (IOException e) {
      return true;
    }
  }

  private record Load(
      Map<Integer, Integer> writeCodes,
      Map<Integer, Integer> listCodes,
      int unexpected,
      int missing,
      int sequentialRefused) {}

  private static Load loadIsBoundedByTheLimits(RawHttps http, int writes) throws Exception {
    String small = "x".repeat(200 * 1024);
    byte[] large = configMap("too-large", "z".repeat(OVER_BODY_LIMIT));
    // lists that take a while (20 objects of 200 kB each), so that they overlap
    for (int i = 0; i < 20; i++) {
      http.send("POST", CM, "application/json", configMap("seed" + i, small));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    List<Future<Outcome>> writeAnswers = new ArrayList<>();
    List<Integer> shape = new ArrayList<>();
    List<Future<Outcome>> listAnswers = new ArrayList<>();
    try {
      for (int i = 0; i < writes; i++) {
        int kind = i % 4;
        byte[] body = kind == 0 || kind == 1 ? large : configMap("w" + i, small);
        shape.add(kind);
        writeAnswers.add(
            pool.submit(
                () ->
                    Outcome.of(
                        kind == 1
                            ? http.raw(
                                "POST", CM, "application/json", -1, new ByteArrayInputStream(body))
                            : http.send("POST", CM, "application/json", body))));
        listAnswers.add(pool.submit(() -> Outcome.of(http.send("GET", CM, null, new byte[0]))));
      }
      Map<Integer, Integer> writeCodes = new TreeMap<>();
      Map<Integer, Integer> listCodes = new TreeMap<>();
      int unexpected = 0;
      List<String> acknowledged = new ArrayList<>();
      for (int i = 0; i < writes; i++) {
        Outcome a = writeAnswers.get(i).get();
        writeCodes.merge(a.code(), 1, Integer::sum);
        boolean tooLarge = shape.get(i) <= 1;
        Set<Integer> allowed = tooLarge ? Set.of(413, 429) : Set.of(201, 429);
        if (!allowed.contains(a.code()) || !wellFormed(a)) {
          unexpected++;
          System.out.println("  e.g. write " + i + ": " + a);
        } else if (a.code() == 201) {
          acknowledged.add(a.name());
        }
        Outcome l = listAnswers.get(i).get();
        listCodes.merge(l.code(), 1, Integer::sum);
        if (!Set.of(200, 429).contains(l.code()) || !wellFormed(l)) {
          unexpected++;
          System.out.println("  e.g. list " + i + ": " + l);
        }
      }
      int missing = 0;
      for (String name : acknowledged) {
        missing += http.send("GET", CM + "/" + name, null, new byte[0]).code() == 200 ? 0 : 1;
      }
      // a slot that leaked would refuse some of these with 429 (the limit is 2)
      int refused = 0;
      for (int i = 0; i < 10; i++) {
        refused +=
            http.send("POST", CM, "application/json", configMap("after-" + i, "v")).code() == 201
                ? 0
                : 1;
      }
      RawHttps.Answer declared = http.send("POST", CM, "application/json", large);
      RawHttps.Answer chunked =
          http.raw("POST", CM, "application/json", -1, new ByteArrayInputStream(large));
      for (Outcome a : List.of(Outcome.of(declared), Outcome.of(chunked))) {
        if (a.code() != 413 || !wellFormed(a)) {
          unexpected++;
          System.out.println("  e.g. large body alone: " + a);
        }
      }
      return new Load(writeCodes, listCodes, unexpected, missing, refused);
    } finally {
      pool.shutdownNow();
    }
  }

  /** What is kept of an answer (not its body: hundreds of lists of megabytes each). */
  private record Outcome(
      int code, String reason, Optional<String> retryAfter, String name, String excerpt) {
    static Outcome of(RawHttps.Answer a) {
      boolean status = a.body().startsWith("{\"kind\":\"Status\"");
      return new Outcome(
          a.code(),
          status ? a.reason() : "",
          a.retryAfter(),
          a.code() == 201 ? a.json().path("metadata").path("name").asText() : "",
          a.body().length() > 300 ? a.body().substring(0, 300) + "..." : a.body());
    }
  }

  /** A 429 says when to retry and why; a 413 why. */
  private static boolean wellFormed(Outcome a) {
    return switch (a.code()) {
      case 429 ->
          a.retryAfter().filter("1"::equals).isPresent() && a.reason().equals("TooManyRequests");
      case 413 -> a.reason().equals("RequestEntityTooLarge");
      default -> true;
    };
  }

  private static byte[] configMap(String name, String value) {
    return ("{\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"b\":\"" + value + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Opens a watch and never reads it while 40 objects of 1 MB are written, then reads what is left:
   * the server must have dropped the connection before queueing all 40 MB.
   */
  private static boolean stalledWatchIsDropped(
      EmbeddedApiServer server, RawHttps http, long[] bytesRead) throws Exception {
    // a small receive buffer, set before connecting so that TCP's window scale matches it
    try (SSLSocket tls = http.tls(64 * 1024)) {
      OutputStream out = tls.getOutputStream();
      out.write(
          ("GET "
                  + CM
                  + "?watch=true&resourceVersion="
                  + server.resourceVersion()
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + http.token()
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String blob = "y".repeat(1_000_000);
      for (int i = 0; i < 40; i++) {
        RawHttps.Answer a = http.send("POST", CM, "application/json", configMap("big" + i, blob));
        if (a.code() != 201) {
          throw new IllegalStateException("write " + i + " answered " + a.code() + " " + a.body());
        }
      }
      tls.setSoTimeout(20_000);
      InputStream in = tls.getInputStream();
      byte[] buf = new byte[65536];
      try {
        int n;
        while ((n = in.read(buf)) != -1) {
          bytesRead[0] += n;
        }
      } catch (SocketTimeoutException e) {
        return false; // still open, nothing more coming: neither dropped nor delivered
      } catch (IOException e) {
        // reset by the server
      }
      return bytesRead[0] < 40_000_000L;
    }
  }
}
