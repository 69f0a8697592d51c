package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Raw HTTPS to an embedded API server, with its bearer token and trusting exactly its certificate:
 * for what stock clients never send (hostile bodies, odd content types, sockets that never speak).
 */
final class RawHttps {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One answer: status code ({@code -1}: none), body and the Retry-After header if any. */
  record Answer(int code, String body, Optional<String> retryAfter) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        return JSON.createObjectNode();
      }
    }

    String reason() {
      return json().path("reason").asText();
    }
  }

  private final HttpClient client;
  private final SSLContext ssl;
  private final URI base;
  private final String token;

  RawHttps(URI base, String certificatePem, String token) {
    try {
      this.ssl = trusting(certificatePem);
    } catch (Exception e) {
      throw new IllegalStateException("cannot trust the server's certificate", e);
    }
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(ssl)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    this.base = base;
    this.token = token;
  }

  RawHttps(EmbeddedApiServer server) {
    this(server.url(), server.certificatePem(), server.token());
  }

  /** For a server in another process: server URL, CA and token read from its kubeconfig. */
  static RawHttps fromKubeconfig(Path kubeconfig) throws IOException {
    JsonNode kc = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(kubeconfig));
    JsonNode cluster = kc.path("clusters").path(0).path("cluster");
    String pem =
        new String(
            Base64.getDecoder().decode(cluster.path("certificate-authority-data").asText()),
            StandardCharsets.US_ASCII);
    String token = kc.path("users").path(0).path("user").path("token").asText();
    return new RawHttps(URI.create(cluster.path("server").asText()), pem, token);
  }

  int port() {
    return base.getPort();
  }

  String token() {
    return token;
  }

  /** A GET with an Accept header ({@code application/json;as=Table;...} for a table). */
  Answer get(String path, String accept) {
    return send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .header("Accept", accept)
            .GET());
  }

  /**
   * A GET whose body is counted as it arrives rather than kept (a list of many MB): its code, the
   * length its head announced (-1 if none), the bytes that came, and why reading stopped early.
   */
  record Counted(int code, long announced, long received, String failure) {
    boolean whole() {
      return code == 200 && failure.isEmpty() && announced == received;
    }
  }

  Counted getCounted(String path) {
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build();
    try {
      HttpResponse<InputStream> r = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
      long announced = r.headers().firstValueAsLong("Content-Length").orElse(-1);
      long received = 0;
      String failure = "";
      try (InputStream in = r.body()) {
        byte[] chunk = new byte[64 * 1024];
        for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
          received += n;
        }
      } catch (IOException e) {
        failure = String.valueOf(e);
      }
      return new Counted(r.statusCode(), announced, received, failure);
    } catch (IOException e) {
      return new Counted(-1, -1, 0, String.valueOf(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Counted(-1, -1, 0, "interrupted");
    }
  }

  /** Bodies above the server's limit go over a raw socket so that its early 413 is read. */
  Answer send(String method, String path, String contentType, byte[] body) {
    if (body.length > LARGE) {
      return raw(method, path, contentType, body.length, new ByteArrayInputStream(body));
    }
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    return send(b);
  }

  private Answer send(HttpRequest.Builder b) {
    try {
      HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body(), r.headers().firstValue("Retry-After"));
    } catch (IOException e) {
      return new Answer(-1, String.valueOf(e), Optional.empty());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(-1, "interrupted", Optional.empty());
    }
  }

  private static final int LARGE = 1024 * 1024;

  /**
   * One request over its own TLS connection, the body written by another thread while this one
   * reads the answer: a server that answers before the body is complete (413) is heard, not just
   * seen closing the connection. {@code length} -1 sends the body chunked, without a
   * Content-Length.
   */
  Answer raw(String method, String path, String contentType, long length, InputStream body) {
    try (SSLSocket s = tls(0)) {
      s.setSoTimeout(60_000);
      StringBuilder head =
          new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n")
              .append("Authorization: Bearer ")
              .append(token)
              .append("\r\nContent-Type: ")
              .append(contentType)
              .append("\r\nConnection: close\r\n")
              .append(
                  length < 0
                      ? "Transfer-Encoding: chunked\r\n"
                      : "Content-Length: " + length + "\r\n")
              .append("\r\n");
      OutputStream out = s.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Thread writer =
          new Thread(
              () -> {
                byte[] buf = new byte[64 * 1024];
                try (body) {
                  int n;
                  while ((n = body.read(buf)) > 0) {
                    if (length < 0) {
                      out.write(
                          (Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                      out.write(buf, 0, n);
                      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    } else {
                      out.write(buf, 0, n);
                    }
                  }
                  if (length < 0) {
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                  }
                  out.flush();
                } catch (IOException e) {
                  // the server stopped listening: its answer says why
                }
              },
              "raw-body-writer");
      writer.setDaemon(true);
      writer.start();
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!answer.startsWith("HTTP/1.1 ")) {
        return new Answer(-1, answer, Optional.empty());
      }
      int code = Integer.parseInt(answer.substring(9, 12));
      int bodyAt = answer.indexOf("\r\n\r\n");
      return new Answer(
          code, bodyAt < 0 ? "" : answer.substring(bodyAt + 4), header(answer, "Retry-After"));
    } catch (IOException e) {
      return new Answer(-1, String.valueOf(e), Optional.empty());
    }
  }

  private static Optional<String> header(String answer, String name) {
    for (String line : answer.split("\r\n")) {
      if (line.isEmpty()) {
        break;
      }
      if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
        return Optional.of(line.substring(name.length() + 1).trim());
      }
    }
    return Optional.empty();
  }

  /** A plain TCP connection to the server that has not started TLS. */
  Socket tcp() throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", base.getPort()), 5_000);
    return s;
  }

  /**
   * A TLS connection with its handshake done; {@code receiveBuffer} bytes of kernel buffer (set
   * before connecting, so TCP's window scale matches it), or 0 for the default.
   */
  SSLSocket tls(int receiveBuffer) throws IOException {
    Socket raw = new Socket();
    if (receiveBuffer > 0) {
      raw.setReceiveBufferSize(receiveBuffer);
    }
    raw.connect(new InetSocketAddress("127.0.0.1", base.getPort()), 5_000);
    SSLSocket tls =
        (SSLSocket) ssl.getSocketFactory().createSocket(raw, "127.0.0.1", base.getPort(), true);
    tls.startHandshake();
    return tls;
  }

  /** TLS that trusts exactly the server's self-signed certificate (PEM). */
  static SSLContext trusting(String certificatePem) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry(
        "server",
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(certificatePem.getBytes(StandardCharsets.US_ASCII))));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
