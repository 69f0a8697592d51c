package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;

/**
 * The server's certificate, private key and bearer token, kept in {@code stateDir/identity.json}
 * (mode 0600) so that a kubeconfig copied elsewhere keeps working after a restart on the same state
 * directory, as a cluster's credentials do. They change only when rotation is asked for ({@code
 * --rotate-credentials}), or when the certificate has expired. The port the server last listened on
 * is kept beside them, so that a start without {@code --port} tries it first.
 *
 * <p>The file is written whole to a temporary file, synced, moved into place and the directory
 * synced, so a crash or a power cut leaves either the old identity or the new one. A file that
 * cannot be read is not replaced silently (every copy of the kubeconfig would stop working without
 * a word): start-up fails and says how to rotate.
 */
final class ServerIdentityFile {

  static final String NAME = "identity.json";

  /** What is kept: the TLS identity, the token and the last port (0 when none yet). */
  record Identity(TlsIdentity tls, BearerAuth auth, int lastPort) {}

  private ServerIdentityFile() {}

  /**
   * The identity kept in {@code stateDir}, or a new one (written before it is returned) when there
   * is none, its certificate has expired, or {@code rotate} asks for one.
   */
  static Identity loadOrCreate(Path stateDir, boolean rotate, ObjectMapper json) {
    Path file = stateDir.resolve(NAME);
    if (!rotate && Files.exists(file)) {
      Identity kept = read(file, json);
      if (!expired(kept.tls())) {
        return kept;
      }
    }
    Identity fresh =
        new Identity(TlsIdentity.generate(), BearerAuth.random(), lastPort(file, json));
    write(file, fresh, json);
    return fresh;
  }

  /** Records the port the server listens on, keeping the credentials. */
  static void rememberPort(Path stateDir, Identity identity, int port, ObjectMapper json) {
    if (identity.lastPort() != port) {
      write(stateDir.resolve(NAME), new Identity(identity.tls(), identity.auth(), port), json);
    }
  }

  private static Identity read(Path file, ObjectMapper json) {
    try {
      JsonNode node = json.readTree(file.toFile());
      String cert = node.path("certificate").asText("");
      String key = node.path("privateKey").asText("");
      String token = node.path("token").asText("");
      if (cert.isEmpty() || key.isEmpty() || token.isEmpty()) {
        throw new IllegalStateException(
            unreadable(file, "certificate, privateKey or token missing"));
      }
      return new Identity(
          new TlsIdentity(cert, key), new BearerAuth(token), node.path("port").asInt(0));
    } catch (IOException e) {
      throw new IllegalStateException(unreadable(file, e.getMessage()), e);
    }
  }

  /** The port kept in a file about to be replaced, so that rotation keeps the address. */
  private static int lastPort(Path file, ObjectMapper json) {
    try {
      return Files.exists(file) ? json.readTree(file.toFile()).path("port").asInt(0) : 0;
    } catch (IOException damaged) {
      return 0;
    }
  }

  private static String unreadable(Path file, String why) {
    return "cannot read the server's certificate and token from "
        + file
        + " ("
        + why
        + "); start with --rotate-credentials to make new ones (every copy of the kubeconfig must"
        + " then be replaced by the new one)";
  }

  private static boolean expired(TlsIdentity tls) {
    try {
      X509Certificate cert =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new ByteArrayInputStream(
                          tls.certificatePem().getBytes(StandardCharsets.US_ASCII)));
      return cert.getNotAfter().toInstant().isBefore(Instant.now());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(
          "the server certificate kept in the state directory is not a certificate: "
              + e.getMessage()
              + "; start with --rotate-credentials to make a new one",
          e);
    }
  }

  private static void write(Path file, Identity identity, ObjectMapper json) {
    ObjectNode node = json.createObjectNode();
    node.put("certificate", identity.tls().certificatePem());
    node.put("privateKey", identity.tls().privateKeyPem());
    node.put("token", identity.auth().token());
    node.put("port", identity.lastPort());
    try {
      Path tmp =
          Files.createTempFile(
              file.getParent(),
              ".identity",
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try {
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
          ch.write(ByteBuffer.wrap(json.writerWithDefaultPrettyPrinter().writeValueAsBytes(node)));
          ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
          dir.force(true);
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the server's identity to " + file, e);
    }
  }
}
