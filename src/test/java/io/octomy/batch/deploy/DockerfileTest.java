package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The image cannot be built here; its few promises are checked as text, and against the chart. */
class DockerfileTest {

  private final String dockerfile = Chart.read(Path.of("Dockerfile"));

  @Test
  void javaSeventeenRuntimeTheShadedJarAndTheEntrypoint() {
    assertThat(dockerfile).containsPattern("(?m)^FROM eclipse-temurin:17-jre\\b");
    assertThat(dockerfile)
        .containsPattern("(?m)^COPY target/octomy-batch\\.jar /app/octomy-batch\\.jar$");
    assertThat(dockerfile)
        .containsPattern(
            "(?m)^ENTRYPOINT \\[\"java\",\\s*\"-jar\",\\s*\"/app/octomy-batch\\.jar\"\\]$");
  }

  @Test
  void runsAsTheNonRootUserThePodsExpect() {
    // Numeric, so the kubelet can check runAsNonRoot without reading the image's passwd file.
    Matcher m = Pattern.compile("(?m)^USER (\\d+):(\\d+)$").matcher(dockerfile);
    assertThat(m.find()).as("a numeric USER uid:gid").isTrue();
    assertThat(Long.parseLong(m.group(1))).isPositive();
    String uid = Chart.defaults().controllerPod().at("/spec/securityContext/runAsUser").asText();
    assertThat(m.group(1)).isEqualTo(uid);
  }
}
