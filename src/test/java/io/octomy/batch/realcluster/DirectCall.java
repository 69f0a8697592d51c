package io.octomy.batch.realcluster;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * One HTTPS GET straight to a controller's visibility port, past the API server, as an attacker or
 * a port-forward would send it: the server is verified by the certificate the APIService trusts
 * (not by host name: the call goes to 127.0.0.1), or not at all where its answer alone is under
 * test, with a client certificate of our choosing or none, and any headers.
 */
final class DirectCall {

  /** The status and body, or status 0 with the reason when the TLS handshake was refused. */
  record Reply(int status, String body) {}

  private DirectCall() {}

  static Reply get(
      int port,
      String path,
      String servingCertificatePem,
      Path clientCertificate,
      Path clientKey,
      Map<String, String> headers)
      throws Exception {
    SSLContext tls = SSLContext.getInstance("TLS");
    KeyManagerFactory keys = null;
    if (clientCertificate != null) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(
          "client",
          privateKey(clientKey),
          new char[0],
          new Certificate[] {certificate(Files.readString(clientCertificate))});
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, new char[0]);
    }
    tls.init(keys == null ? null : keys.getKeyManagers(), trust(servingCertificatePem), null);
    try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port)) {
      StringBuilder request =
          new StringBuilder(
              "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
      headers.forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
      request.append("\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(answer.substring(9, 12));
      int body = answer.indexOf("\r\n\r\n");
      return new Reply(status, body < 0 ? "" : answer.substring(body + 4));
    } catch (IOException e) {
      return new Reply(0, e.toString());
    }
  }

  /** Trusts that certificate, or (null) whatever the server presents. */
  private static TrustManager[] trust(String pem) throws Exception {
    if (pem == null) {
      return new TrustManager[] {
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        }
      };
    }
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("server", certificate(pem));
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    return trust.getTrustManagers();
  }

  private static Certificate certificate(String pem) throws Exception {
    return CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
  }

  private static PrivateKey privateKey(Path pem) throws IOException {
    try (Reader r = Files.newBufferedReader(pem);
        PEMParser parser = new PEMParser(r)) {
      Object o = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      return o instanceof PEMKeyPair pair
          ? converter.getKeyPair(pair).getPrivate()
          : converter.getPrivateKey((PrivateKeyInfo) o);
    }
  }
}
