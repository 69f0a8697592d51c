package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.octomy.batch.api.ArraySpec;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.vocabulary.Labels;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An array's item as made from its parent ({@link ArrayItems}). */
class ArrayItemsTest {

  private static BatchJob parent() {
    BatchJob job = aJob("render").cpu(500).after("prep").build();
    job.getMetadata().setUid("uid-render");
    job.getMetadata().setLabels(Map.of("app.kubernetes.io/instance", "films"));
    job.getSpec().setArray(new ArraySpec(3, null));
    job.getSpec().setTtlSecondsAfterFinished(60);
    job.getSpec().setBackoffLimit(2);
    var main = job.getSpec().getTemplate().getSpec().getContainers().get(0);
    main.setEnv(
        List.of(
            new EnvVar("OCTOMY_ARRAY_INDEX", "stale", null),
            new EnvVar("FRAME", "f-$(OCTOMY_ARRAY_INDEX)", null)));
    job.getSpec()
        .getTemplate()
        .getSpec()
        .setInitContainers(List.of(new ContainerBuilder().withName("fetch").build()));
    return job;
  }

  @Test
  void anItemIsTheSpecWithoutArrayOrTtlWithItsIndexFirstInTheEnvironment() {
    BatchJob parent = parent();
    BatchJob item = ArrayItems.item(parent, 2);
    assertThat(item.getMetadata().getName()).isEqualTo("render-2");
    assertThat(item.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(item.getSpec().getArray()).isNull();
    assertThat(item.getSpec().getTtlSecondsAfterFinished()).isNull();
    assertThat(item.getSpec().getBackoffLimit()).isEqualTo(2);
    assertThat(item.getSpec().getAfter()).containsExactly("prep");
    assertThat(item.getSpec().getResources()).isEqualTo(parent.getSpec().getResources());
    assertThat(item.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .containsExactly(
            new EnvVar("OCTOMY_ARRAY_INDEX", "2", null),
            new EnvVar("FRAME", "f-$(OCTOMY_ARRAY_INDEX)", null));
    assertThat(item.getSpec().getTemplate().getSpec().getInitContainers().get(0).getEnv())
        .containsExactly(new EnvVar("OCTOMY_ARRAY_INDEX", "2", null));
    assertThat(parent.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .as("the parent is left as it was")
        .hasSize(2)
        .first()
        .isEqualTo(new EnvVar("OCTOMY_ARRAY_INDEX", "stale", null));
    assertThat(parent.getSpec().getArray()).isNotNull();
  }

  @Test
  void anItemCarriesTheArraysLabelsOnlyAndIsOwnedByItsParent() {
    BatchJob item = ArrayItems.item(parent(), 0);
    assertThat(item.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(Labels.ARRAY, "render", Labels.ARRAY_INDEX, "0"));
    assertThat(ArrayItems.parentUid(item)).isEqualTo("uid-render");
    assertThat(ArrayItems.index(item)).isZero();
    assertThat(ArrayItems.isParent(item)).isFalse();
    assertThat(ArrayItems.isParent(parent())).isTrue();
    assertThat(ArrayItems.parentUid(parent())).isNull();
  }
}
