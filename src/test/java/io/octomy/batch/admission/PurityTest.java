package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The decision is a pure function: the admission package (and the drift math) import no Kubernetes
 * client, operator framework or serializer, and read no clock of their own.
 */
class PurityTest {

  private static List<Path> sources(String dir) throws IOException {
    try (Stream<Path> s = Files.walk(Path.of(dir))) {
      return s.filter(p -> p.toString().endsWith(".java")).toList();
    }
  }

  @Test
  void admissionAndDriftStayPure() throws IOException {
    List<Path> files =
        new java.util.ArrayList<>(sources("src/main/java/io/octomy/batch/admission"));
    files.addAll(sources("src/main/java/io/octomy/batch/controller/drift"));
    assertThat(files).isNotEmpty();
    for (Path f : files) {
      String text = Files.readString(f);
      assertThat(text)
          .as(f.toString())
          .doesNotContain(
              "import io.fabric8",
              "import io.javaoperatorsdk",
              "import com.fasterxml.jackson.databind",
              "Instant.now(",
              "System.currentTimeMillis(",
              "Clock.system");
    }
  }
}
