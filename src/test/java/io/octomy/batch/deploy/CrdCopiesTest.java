package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * crds/ is the one source of the CRDs (itself checked against the build's output); the chart's and
 * the manifests' copies must be byte-for-byte the same. Fix: cp crds/*.yaml helm/octomy-batch/crds/
 * and re-render the manifests.
 */
class CrdCopiesTest {

  @Test
  void chartCrdsAreTheCommittedCrds() {
    assertSameFiles(Chart.CHART_CRDS, "cp crds/*.yaml helm/octomy-batch/crds/");
  }

  @Test
  void manifestCrdsAreTheCommittedCrds() {
    assertSameFiles(Manifests.BASE.resolve("crds"), "re-render the manifests (docs/deployment.md)");
  }

  private static void assertSameFiles(Path copy, String fix) {
    assertThat(Chart.yamlFiles(copy))
        .as("CRD files in %s; fix: %s", copy, fix)
        .containsExactlyElementsOf(Chart.yamlFiles(Chart.TOP_CRDS));
    for (String f : Chart.yamlFiles(Chart.TOP_CRDS)) {
      assertThat(Chart.read(copy.resolve(f)))
          .as("%s/%s differs from crds/%s; fix: %s", copy, f, f, fix)
          .isEqualTo(Chart.read(Chart.TOP_CRDS.resolve(f)));
    }
  }
}
