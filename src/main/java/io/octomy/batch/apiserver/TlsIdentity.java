package io.octomy.batch.apiserver;

import io.octomy.batch.tls.SelfSignedCertificate;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * A fresh self-signed certificate for 127.0.0.1 and localhost ({@link SelfSignedCertificate}).
 *
 * <p>Why TLS on loopback at all: kubectl (client-go) reads a kubeconfig user's token only when the
 * cluster is reached over TLS; over plain {@code http://} it silently sends no credentials. The
 * certificate is its own CA and goes into the kubeconfig as {@code certificate-authority-data}, so
 * clients verify the server rather than skipping verification. It is kept, with the token, in the
 * state directory ({@link ServerIdentityFile}) and renewed only on request.
 */
record TlsIdentity(String certificatePem, String privateKeyPem) {

  static TlsIdentity generate() {
    SelfSignedCertificate c =
        SelfSignedCertificate.create(
            "127.0.0.1",
            List.of("localhost"),
            List.of(InetAddress.getLoopbackAddress().getHostAddress()),
            Duration.ofDays(3650));
    return new TlsIdentity(c.certificatePem(), c.privateKeyPem());
  }

  /** The certificate as kubeconfig's {@code certificate-authority-data} (base64 of the PEM). */
  String caData() {
    return Base64.getEncoder().encodeToString(certificatePem.getBytes(StandardCharsets.US_ASCII));
  }
}
