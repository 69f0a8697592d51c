package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the kubeconfig of the embedded server: one cluster (with the server's self-signed
 * certificate as its CA), one user with the bearer token, one context (namespace {@code default}).
 * The file is created with mode 0600 before the token is written into it, then moved into place
 * atomically so that a reader never sees half a file. It is not synced: every start writes it
 * again, so what a power cut could leave behind lasts only until the next start.
 */
final class KubeconfigWriter {

  static final String NAME = "octomy-standalone";

  private KubeconfigWriter() {}

  static void write(Path file, String serverUrl, String caData, String token, ObjectMapper yaml) {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("apiVersion", "v1");
    config.put("kind", "Config");
    config.put(
        "clusters",
        List.of(
            Map.of(
                "name",
                NAME,
                "cluster",
                Map.of("server", serverUrl, "certificate-authority-data", caData))));
    config.put("users", List.of(Map.of("name", NAME, "user", Map.of("token", token))));
    config.put(
        "contexts",
        List.of(
            Map.of(
                "name",
                NAME,
                "context",
                Map.of("cluster", NAME, "user", NAME, "namespace", "default"))));
    config.put("current-context", NAME);
    config.put("preferences", Map.of());
    try {
      Path tmp =
          Files.createTempFile(
              file.getParent(),
              ".kubeconfig",
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try {
        yaml.writeValue(tmp.toFile(), config);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write kubeconfig " + file, e);
    }
  }
}
