package io.octomy.batch.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
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
 * A fresh self-signed server certificate (EC P-256, made with BouncyCastle, which the fabric8 mock
 * web server already brings) that is its own CA: clients trust exactly this certificate (a
 * kubeconfig's {@code certificate-authority-data}, an APIService's {@code caBundle}) and verify the
 * server by it, with no CA key kept anywhere.
 *
 * @param certificatePem the certificate, PEM
 * @param privateKeyPem its PKCS#8 private key, PEM
 */
public record SelfSignedCertificate(String certificatePem, String privateKeyPem) {

  /**
   * @param commonName the subject's CN
   * @param dnsNames host names the certificate is valid for
   * @param ipAddresses IP addresses it is valid for
   */
  public static SelfSignedCertificate create(
      String commonName, List<String> dnsNames, List<String> ipAddresses, Duration validity) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
      KeyPair keys = generator.generateKeyPair();
      X500Name subject = new X500Name("CN=" + commonName + ",O=octomy-batch");
      Instant now = Instant.now();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              subject,
              new BigInteger(64, new SecureRandom()),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(now.plus(validity)),
              subject,
              keys.getPublic());
      List<GeneralName> names = new ArrayList<>();
      ipAddresses.forEach(ip -> names.add(new GeneralName(GeneralName.iPAddress, ip)));
      dnsNames.forEach(dns -> names.add(new GeneralName(GeneralName.dNSName, dns)));
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(names.toArray(GeneralName[]::new)));
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
      return new SelfSignedCertificate(
          pem("CERTIFICATE", cert.getEncoded()),
          pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("cannot create a TLS certificate for " + commonName, e);
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
}
