package io.octomy.batch.controller.aggregated;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.octomy.batch.controller.visibility.VisibilityApi;
import io.octomy.batch.vocabulary.Finalizers;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the webhook answers, the patch applied as the API server applies a JSON patch (zjsonpatch,
 * the library standalone's server applies them with).
 */
class ReservationFinalizerWebhookTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static Stream<Arguments> reviews() {
    return Stream.of(
        Arguments.of(
            "a new job without finalizers gets the list with ours",
            "CREATE",
            "{}",
            List.of(Finalizers.RESERVATION)),
        Arguments.of(
            "a new job with finalizers: null gets the list with ours",
            "CREATE",
            "{\"finalizers\":null}",
            List.of(Finalizers.RESERVATION)),
        Arguments.of(
            "a new job with other finalizers keeps them, ours last",
            "CREATE",
            "{\"finalizers\":[\"example.com/keep\"]}",
            List.of("example.com/keep", Finalizers.RESERVATION)),
        Arguments.of(
            "a new job that names ours already is left as sent",
            "CREATE",
            "{\"finalizers\":[\"" + Finalizers.RESERVATION + "\",\"example.com/keep\"]}",
            List.of(Finalizers.RESERVATION, "example.com/keep")),
        Arguments.of(
            "an update is left as sent, even without ours (the controller adds it when it must)",
            "UPDATE",
            "{\"finalizers\":[\"example.com/keep\"]}",
            List.of("example.com/keep")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reviews")
  void aReviewIsAllowedWithAtMostThePatchThatAddsTheFinalizer(
      String name, String operation, String metadata, List<String> finalizersAfter)
      throws Exception {
    aReviewOf(operation, metadata, finalizersAfter, "batchjobs");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("otherResources")
  void otherResourcesAreNeverChanged(
      String name, String operation, String metadata, List<String> finalizersAfter, String resource)
      throws Exception {
    aReviewOf(operation, metadata, finalizersAfter, resource);
  }

  static Stream<Arguments> otherResources() {
    return Stream.of(
        // a configuration whose rules were widened by hand: nothing would remove the finalizer
        Arguments.of("a BatchNode", "CREATE", "{}", List.of(), "batchnodes"),
        Arguments.of("a ConfigMap", "CREATE", "{}", List.of(), "configmaps"));
  }

  private static void aReviewOf(
      String operation, String metadata, List<String> finalizersAfter, String resource)
      throws Exception {
    ObjectNode object =
        (ObjectNode)
            JSON.readTree(
                "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\","
                    + "\"metadata\":"
                    + metadata
                    + ",\"spec\":{}}");
    ((ObjectNode) object.get("metadata")).put("name", "j").put("namespace", "team-a");
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode request = review.putObject("request");
    request.put("uid", "0b9c1f9e-1").put("operation", operation);
    request
        .putObject("resource")
        .put("group", resource.equals("configmaps") ? "" : "batch.octomy.io")
        .put("version", "v1alpha1")
        .put("resource", resource);
    request.set("object", object);

    VisibilityApi.Answer answer =
        ReservationFinalizerWebhook.review(JSON.writeValueAsBytes(review));

    assertThat(answer.status()).isEqualTo(200);
    JsonNode body = JSON.readTree(answer.body());
    assertThat(body.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(body.path("kind").asText()).isEqualTo("AdmissionReview");
    JsonNode response = body.path("response");
    assertThat(response.path("uid").asText()).isEqualTo("0b9c1f9e-1");
    assertThat(response.path("allowed").asBoolean()).isTrue();
    JsonNode after = object;
    if (response.has("patch")) {
      assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
      JsonNode patch =
          JSON.readTree(
              new String(
                  Base64.getDecoder().decode(response.path("patch").asText()),
                  StandardCharsets.UTF_8));
      after = JsonPatch.apply(patch, object);
    }
    List<String> finalizers = new java.util.ArrayList<>();
    after.path("metadata").path("finalizers").forEach(f -> finalizers.add(f.asText()));
    assertThat(finalizers).isEqualTo(finalizersAfter);
    assertThat(response.has("patch"))
        .as("a patch only when it changes something")
        .isEqualTo(!after.equals(object));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notReviews")
  void aBodyThatIsNotAReviewIsRefusedWithWhatToSend(String name, String body) throws Exception {
    VisibilityApi.Answer answer =
        ReservationFinalizerWebhook.review(body.getBytes(StandardCharsets.UTF_8));

    assertThat(answer.status()).isEqualTo(400);
    JsonNode status = JSON.readTree(answer.body());
    assertThat(status.path("kind").asText()).isEqualTo("Status");
    assertThat(status.path("message").asText()).isNotBlank();
  }

  static Stream<Arguments> notReviews() {
    return Stream.of(
        Arguments.of("not JSON", "{not json"),
        Arguments.of("no request", "{\"kind\":\"AdmissionReview\"}"),
        Arguments.of("a request without uid", "{\"request\":{\"operation\":\"CREATE\"}}"),
        Arguments.of("JSON but not an object", "[1,2]"));
  }
}
