package io.octomy.batch.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OwnerlessItemStoreTest {

  private static BatchJob job(String namespace, String name) {
    BatchJob job = new BatchJob();
    job.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withLabels(Map.of("team", "solvers"))
            .withManagedFields(
                new ManagedFieldsEntryBuilder()
                    .withManager("kubectl")
                    .withOperation("Apply")
                    .build())
            .build());
    return job;
  }

  @Test
  void keepsEachObjectUnderItsNamespaceAndNameWithoutItsFieldOwners() {
    OwnerlessItemStore<BatchJob> store = new OwnerlessItemStore<>();
    BatchJob job = job("lab", "solve-1");
    String key = store.getKey(job);
    store.put(key, job);

    assertThat(key).isEqualTo("lab/solve-1");
    BatchJob cached = store.get("lab/solve-1");
    assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cached.getMetadata().getLabels()).containsEntry("team", "solvers");
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.keySet().toList()).containsExactly("lab/solve-1");
  }

  @Test
  void replacesAndRemovesLikeTheInformersOwnStore() {
    OwnerlessItemStore<BatchJob> store = new OwnerlessItemStore<>();
    BatchJob first = job("lab", "solve-1");
    BatchJob second = job("lab", "solve-1");
    store.put(store.getKey(first), first);

    assertThat(store.put(store.getKey(second), second)).isSameAs(first);
    assertThat(store.values().toList()).containsExactly(second);
    assertThat(store.remove("lab/solve-1")).isSameAs(second);
    assertThat(store.size()).isZero();
    assertThat(store.get("lab/solve-1")).isNull();
  }
}
