package io.octomy.batch.standalone;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A fresh self-signed certificate for 127.0.0.1 (EC P-256, made with BouncyCastle, which the
 * fabric8 mock web server already brings for the same purpose).
 *
 * <p>Why TLS on loopback at all: kubectl (client-go) reads a kubeconfig user's token only when the
 * cluster is reached over TLS; over plain {@code http://} it silently sends no credentials. The
 * certificate is its own CA and goes into the kubeconfig as {@code certificate-authority-data}, so
 * clients verify the server rather than skipping verification. It is kept, with the token, in the
 * state directory ({@link ServerIdentityFile}) and renewed only on request.
 */
record TlsIdentity(String certificatePem, String privateKeyPem) {

  static TlsIdentity generate() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
      KeyPair keys = generator.generateKeyPair();
      X500Name subject = new X500Name("CN=127.0.0.1,O=octomy-batch standalone");
      Instant now = Instant.now();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              subject,
              new BigInteger(64, new SecureRandom()),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(now.plus(Duration.ofDays(3650))),
              subject,
              keys.getPublic());
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(
                    GeneralName.iPAddress, InetAddress.getLoopbackAddress().getHostAddress()),
                new GeneralName(GeneralName.dNSName, "localhost")
              }));
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign));
      builder.addExtension(
          Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      X509Certificate cert =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
      return new TlsIdentity(
          pem("CERTIFICATE", cert.getEncoded()),
          pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("cannot create the server's TLS certificate", e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** The certificate as kubeconfig's {@code certificate-authority-data} (base64 of the PEM). */
  String caData() {
    return Base64.getEncoder().encodeToString(certificatePem.getBytes(StandardCharsets.US_ASCII));
  }
}
