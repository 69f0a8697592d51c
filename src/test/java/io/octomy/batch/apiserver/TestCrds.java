package io.octomy.batch.apiserver;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The test resources: our own sample CRD, and the product CRDs once they are copied in. */
final class TestCrds {

  static final ResourceDefinitionContext SAMPLES =
      new ResourceDefinitionContext.Builder()
          .withGroup("test.octomy.io")
          .withVersion("v1alpha1")
          .withPlural("samples")
          .withKind("Sample")
          .withNamespaced(true)
          .build();

  private TestCrds() {}

  static Path resource(String name) {
    try {
      return Path.of(TestCrds.class.getResource("/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static Path sampleCrd() {
    return resource("apiserver/sample-crd.yaml");
  }

  /** The product's CRDs, straight from {@code crds/}: the committed copy users install. */
  static List<Path> productCrds() {
    try (Stream<Path> files = Files.list(Path.of("crds"))) {
      List<Path> crds = files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
      if (crds.isEmpty()) {
        throw new IllegalStateException("no CRDs in crds/");
      }
      return crds;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The product's examples: what a new user applies first. */
  static Path examples() {
    return Path.of("examples");
  }
}
