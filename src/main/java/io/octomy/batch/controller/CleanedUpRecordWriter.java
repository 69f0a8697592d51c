package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.octomy.batch.vocabulary.Labels;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a namespace's {@link CleanedUpJobs} ConfigMap: read, change, then create it or replace it
 * conditional on the version read, read again on a conflict (a few times, then the caller tries on
 * a later pass).
 */
final class CleanedUpRecordWriter {

  private static final Logger LOG = LoggerFactory.getLogger(CleanedUpRecordWriter.class);

  private static final int ATTEMPTS = 5;

  private final KubernetesClient client;

  CleanedUpRecordWriter(KubernetesClient client) {
    this.client = client;
  }

  /** The record's data (empty when there is none), or null when the server did not answer. */
  Map<String, String> read(String namespace) {
    try {
      ConfigMap current =
          client.configMaps().inNamespace(namespace).withName(CleanedUpJobs.NAME).get();
      return current == null || current.getData() == null ? Map.of() : current.getData();
    } catch (KubernetesClientException e) {
      LOG.warn("reading the record of cleaned-up jobs in {} failed: {}", namespace, e.getMessage());
      return null;
    }
  }

  /** The data written (or found already so), or null when it did not land. */
  Map<String, String> write(String namespace, UnaryOperator<Map<String, String>> change) {
    var maps = client.configMaps().inNamespace(namespace);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        ConfigMap current = maps.withName(CleanedUpJobs.NAME).get();
        Map<String, String> before =
            current == null || current.getData() == null ? Map.of() : current.getData();
        Map<String, String> after = change.apply(new HashMap<>(before));
        if (current != null && after.equals(before)) {
          return after;
        }
        if (current == null) {
          maps.resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName(CleanedUpJobs.NAME)
                      .withNamespace(namespace)
                      .addToLabels("app.kubernetes.io/managed-by", Labels.COMPONENT)
                      .endMetadata()
                      .withData(after)
                      .build())
              .create();
        } else {
          current.setData(after);
          maps.resource(current).update(); // conditional on the resourceVersion read
        }
        return after;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          LOG.warn(
              "writing the record of cleaned-up jobs in {} failed: {}", namespace, e.getMessage());
          return null;
        }
      }
    }
    return null;
  }
}
