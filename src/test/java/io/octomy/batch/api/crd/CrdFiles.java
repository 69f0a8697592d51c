package io.octomy.batch.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the generated and the committed CRDs are, for tests. */
final class CrdFiles {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private CrdFiles() {}

  /** The CRD the build generated, as text. */
  static String generated(String crdName) {
    String resource = "/META-INF/fabric8/" + crdName + "-v1.yml";
    try (InputStream in = CrdFiles.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource + " is not on the classpath; run the build (mvn process-classes) first");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The committed copy under crds/ in the project folder. */
  static Path committed(String crdName) {
    return Path.of("crds", crdName + ".yaml");
  }

  static JsonNode parse(String yaml) {
    try {
      return YAML.readTree(yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
