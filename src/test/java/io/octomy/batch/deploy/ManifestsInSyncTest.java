package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * manifests/base equals a fresh default render of the chart. Re-render after changing the chart:
 * {@code mvn -B -o -q test -Dtest=ManifestsInSyncTest -Doctomy.updateManifests=true}.
 */
class ManifestsInSyncTest {

  @Test
  void committedManifestsAreTheChartsDefaultRender() {
    Map<String, String> expected = Manifests.expected();
    if (Boolean.getBoolean(Manifests.UPDATE_PROPERTY)) {
      Manifests.write(expected);
    }
    Map<String, String> committed = Manifests.committed();
    assertThat(committed.keySet())
        .as("files under manifests/base; re-render with -D%s=true", Manifests.UPDATE_PROPERTY)
        .containsExactlyElementsOf(expected.keySet());
    expected.forEach(
        (file, text) ->
            assertThat(committed.get(file))
                .as(
                    "manifests/base/%s is stale; re-render with -D%s=true",
                    file, Manifests.UPDATE_PROPERTY)
                .isEqualTo(text));
  }
}
