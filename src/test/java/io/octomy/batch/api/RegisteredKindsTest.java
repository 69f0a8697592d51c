package io.octomy.batch.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The product's kinds are registered with fabric8's deserializer (a service file, read by every
 * client's serialization), so a watch event of a BatchJob is read into a {@link BatchJob} at once.
 * Unregistered, the event's object is read into a {@link GenericKubernetesResource} and then
 * converted to the informer's type again, a second full reading of every event the controller and
 * the agent receive.
 */
class RegisteredKindsTest {

  private static String event(String kind, String body) {
    return "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\""
        + Api.GROUP
        + "/"
        + Api.VERSION
        + "\",\"kind\":\""
        + kind
        + "\",\"metadata\":{\"name\":\"one\",\"namespace\":\"lab\",\"resourceVersion\":\"7\"},"
        + body
        + "}}";
  }

  private static Object objectOf(String event) {
    return new KubernetesSerialization().unmarshal(event, WatchEvent.class).getObject();
  }

  @Test
  void aWatchEventOfEachKindIsReadIntoItsOwnClass() {
    record Kind(Class<? extends HasMetadata> type, String body) {}
    for (Kind kind :
        List.of(
            new Kind(
                BatchJob.class,
                "\"spec\":{\"type\":\"mesh-export\",\"resources\":{\"requests\":{\"octomy.io/cpu-milli\":500}}}"),
            new Kind(BatchNode.class, "\"spec\":{\"mode\":\"Drone\"}"),
            new Kind(BatchJobProfile.class, "\"spec\":{}"),
            new Kind(BatchQueue.class, "\"spec\":{\"weight\":2}"))) {
      Object object = objectOf(event(HasMetadata.getKind(kind.type()), kind.body()));

      assertThat(object).as(kind.type().getSimpleName()).isInstanceOf(kind.type());
      assertThat(((HasMetadata) object).getMetadata().getResourceVersion()).isEqualTo("7");
    }
  }

  @Test
  void theJobsSpecIsReadAsTheInformerWouldConvertIt() {
    BatchJob job =
        (BatchJob)
            objectOf(
                event(
                    "BatchJob",
                    "\"spec\":{\"type\":\"mesh-export\",\"resources\":{\"requests\":{\"octomy.io/cpu-milli\":500}}}"));

    assertThat(job.getSpec().getType()).isEqualTo("mesh-export");
    assertThat(job.getSpec().getResources().getRequests())
        .containsEntry("octomy.io/cpu-milli", 500L);
  }

  @Test
  void aKindNobodyRegisteredIsStillReadGenerically() {
    assertThat(objectOf(event("Unheard", "\"spec\":{}")))
        .isInstanceOf(GenericKubernetesResource.class);
  }
}
