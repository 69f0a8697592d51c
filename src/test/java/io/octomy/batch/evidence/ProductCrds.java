package io.octomy.batch.evidence;

import io.octomy.batch.api.crd.CrdFinisher;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The generated CRDs, read from the build output as standalone mode reads them. */
final class ProductCrds {
  private ProductCrds() {}

  static List<String> yamls() {
    List<String> crds = new ArrayList<>();
    for (String name : CrdFinisher.KINDS.keySet()) {
      String resource = "/META-INF/fabric8/" + name + "-v1.yml";
      try (InputStream in = ProductCrds.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " is missing: run mvn compile first");
        }
        crds.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return crds;
  }
}
