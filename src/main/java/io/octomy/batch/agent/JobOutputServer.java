package io.octomy.batch.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.octomy.batch.api.LogEndpoint;
import io.octomy.batch.output.JobOutputText;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the output of the jobs this agent runs as processes, over HTTPS, to callers {@link
 * OutputAccess} lets in (the controller's visibility API): {@code GET} {@link LogEndpoint#PATH}
 * {@code ?namespace=&name=&uid=&run=&replica=[&tailLines=N][&limitBytes=N]} answers the run's
 * output as text, read by {@link JobOutputText} (at most its last 16 MiB, never waiting on what a
 * job put in place of its file). Errors are one sentence of plain text: 400 bad query, 401 no or a
 * refused token, 403 not allowed, 404 no such output here, 429 too many reads at once, 500/504 an
 * unreadable file.
 */
public final class JobOutputServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobOutputServer.class);

  private static final int WORKERS = 2;

  /** Reads waiting for a worker; one more gets 429. */
  private static final int MAX_QUEUED = 16;

  private final Path stateDir;
  private final String node;
  private final OutputAccess access;
  private final ThreadPoolExecutor workers;
  private HttpsServer server;

  /**
   * @param stateDir the agent's state directory, where its Process executor keeps each run's file
   */
  public JobOutputServer(Path stateDir, String node, OutputAccess access) {
    this.stateDir = stateDir;
    this.node = node;
    this.access = access;
    AtomicInteger n = new AtomicInteger();
    this.workers =
        new ThreadPoolExecutor(
            WORKERS,
            WORKERS,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED),
            r -> {
              Thread t = new Thread(r, "octomy-agent-output-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Listens on {@code address:port} (port 0: a free one) with the given certificate and key (PEM,
   * the key PKCS#8) and returns the bound port.
   */
  public int start(String address, int port, String certificatePem, String privateKeyPem)
      throws IOException {
    server = HttpsServer.create(new InetSocketAddress(address, port), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(sslContext(certificatePem, privateKeyPem)));
    server.createContext(
        "/",
        exchange -> {
          try {
            workers.execute(() -> respond(exchange));
          } catch (RejectedExecutionException e) {
            exchange.getResponseHeaders().add("Retry-After", "1");
            send(
                exchange,
                429,
                "too many reads of job output at once on node "
                    + node
                    + "; ask again in a second.");
          }
        });
    server.start();
    return server.getAddress().getPort();
  }

  private void respond(HttpExchange exchange) {
    try {
      if (!exchange.getRequestMethod().equals("GET")) {
        send(exchange, 405, "only GET is served here.");
        return;
      }
      if (!exchange.getRequestURI().getPath().equals(LogEndpoint.PATH)) {
        send(exchange, 404, "the agent serves job output at " + LogEndpoint.PATH + " only.");
        return;
      }
      switch (access.check(exchange.getRequestHeaders().getFirst("Authorization"))) {
        case UNAUTHENTICATED -> {
          send(
              exchange,
              401,
              "Unauthorized: send a bearer token minted for audience "
                  + LogEndpoint.audience(node)
                  + ".");
          return;
        }
        case FORBIDDEN -> {
          send(exchange, 403, "Forbidden: the caller may not get batchnodes/log " + node + ".");
          return;
        }
        case ALLOWED -> {
          // read below
        }
      }
      Map<String, String> q = query(exchange.getRequestURI().getRawQuery());
      RunKey key;
      Long tailLines;
      Long limitBytes;
      try {
        key =
            new RunKey(
                q.get("namespace"),
                q.get("name"),
                q.get("uid"),
                whole(q, "run", 1L).intValue(),
                whole(q, "replica", 0L).intValue());
        tailLines = whole(q, "tailLines", null);
        limitBytes = whole(q, "limitBytes", null);
      } catch (IllegalArgumentException | NullPointerException e) {
        send(exchange, 400, "bad query: " + e.getMessage());
        return;
      }
      byte[] text;
      try {
        text = JobOutputText.read(ProcessExecutor.logFile(stateDir, key), tailLines, limitBytes);
      } catch (NoSuchFileException e) {
        send(
            exchange,
            404,
            "node "
                + node
                + " keeps no output of run "
                + key.run()
                + " of batchjob "
                + key.namespace()
                + "/"
                + key.name()
                + " (nothing written yet,"
                + " or it ran elsewhere).");
        return;
      } catch (JobOutputText.Unreadable e) {
        send(exchange, e.timedOut() ? 504 : 500, e.getMessage());
        return;
      }
      exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
      exchange.sendResponseHeaders(200, text.length == 0 ? -1 : text.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(text);
      }
    } catch (IOException | RuntimeException e) {
      // A review the API server did not answer, or the caller went away: said, and served on.
      LOG.warn("reading job output for {} failed: {}", exchange.getRemoteAddress(), e.toString());
      send(exchange, 503, "node " + node + "'s agent could not answer: " + e.getMessage());
    } finally {
      exchange.close();
    }
  }

  private static Long whole(Map<String, String> q, String name, Long absent) {
    String v = q.get(name);
    if (v == null) {
      return absent;
    }
    try {
      long n = Long.parseLong(v);
      if (n < 0) {
        throw new IllegalArgumentException(name + " must be 0 or more, not " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, not " + v);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw == null) {
      return q;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        q.putIfAbsent(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return q;
  }

  private static void send(HttpExchange exchange, int status, String sentence) {
    byte[] body = (sentence + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    } catch (IOException e) {
      // the caller went away
    } finally {
      exchange.close();
    }
  }

  /** A TLS context serving the one certificate and key. */
  static SSLContext sslContext(String certificatePem, String privateKeyPem) throws IOException {
    try {
      Certificate cert =
          CertificateFactory.getInstance("X.509")
              .generateCertificate(
                  new ByteArrayInputStream(certificatePem.getBytes(StandardCharsets.US_ASCII)));
      PrivateKey key =
          KeyFactory.getInstance(cert.getPublicKey().getAlgorithm())
              .generatePrivate(new PKCS8EncodedKeySpec(der(privateKeyPem)));
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] none = new char[0];
      store.setKeyEntry("agent", key, none, new Certificate[] {cert});
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, none);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keys.getKeyManagers(), null, null);
      return tls;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot serve TLS with the agent's certificate: " + e.getMessage(), e);
    }
  }

  private static byte[] der(String pem) {
    String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    return Base64.getDecoder().decode(body);
  }

  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
    }
    workers.shutdownNow();
  }
}
