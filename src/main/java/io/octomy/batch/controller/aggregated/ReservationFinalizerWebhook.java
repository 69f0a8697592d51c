package io.octomy.batch.controller.aggregated;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.octomy.batch.api.Api;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.controller.visibility.VisibilityApi;
import io.octomy.batch.vocabulary.Finalizers;
import java.io.IOException;
import java.util.Base64;

/**
 * A mutating admission webhook that puts the controller's finalizer ({@link
 * Finalizers#RESERVATION}) on every new BatchJob, as standalone's server does ({@code
 * CreateFinalizers}): the controller must have it on a job before it writes the job's admission,
 * and a job created with it is admitted with one write instead of two (a merge patch of the
 * finalizers, then the status).
 *
 * <p>Served beside the visibility API by the replica that decides, behind the chart's {@code
 * MutatingWebhookConfiguration} with {@code failurePolicy: Ignore}: while no replica answers, a job
 * is created without the finalizer and the controller adds it before it admits the job, as it
 * always did. It never refuses a request: anything but the create of a BatchJob it can read, and
 * one that has the finalizer already, is allowed unchanged. It reads nothing and writes nothing, so
 * dry-run creates get the same patch ({@code sideEffects: None}).
 *
 * <p>Failure handling: a body that is not an AdmissionReview gets 400 with the reason (the API
 * server then applies the failure policy); nothing else fails.
 */
public final class ReservationFinalizerWebhook {

  /** The path the chart's MutatingWebhookConfiguration names. */
  public static final String PATH = "/mutate/batchjobs";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_TYPE = "application/json";
  private static final String JOBS = HasMetadata.getPlural(BatchJob.class);

  private ReservationFinalizerWebhook() {}

  static VisibilityApi.Answer review(byte[] body) {
    JsonNode review;
    try {
      review = JSON.readTree(body);
    } catch (IOException e) {
      return refusal("the body is not JSON: " + e.getMessage());
    }
    JsonNode request = review == null ? null : review.path("request");
    if (request == null || !request.isObject() || request.path("uid").asText("").isEmpty()) {
      return refusal("expected an admission.k8s.io/v1 AdmissionReview with request.uid");
    }
    ObjectNode response = JSON.createObjectNode();
    response.put("uid", request.path("uid").asText());
    response.put("allowed", true);
    JsonNode object = request.path("object");
    if ("CREATE".equals(request.path("operation").asText())
        && isBatchJobs(request.path("resource"))
        && object.isObject()) {
      ArrayNode patch = finalizerPatch(object.path("metadata").path("finalizers"));
      if (patch != null) {
        response.put("patchType", "JSONPatch");
        response.put("patch", Base64.getEncoder().encodeToString(bytes(patch)));
      }
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("apiVersion", review.path("apiVersion").asText("admission.k8s.io/v1"));
    answer.put("kind", "AdmissionReview");
    answer.set("response", response);
    return new VisibilityApi.Answer(200, JSON_TYPE, bytes(answer));
  }

  /**
   * Whether the review is of BatchJobs: a configuration whose rules were widened by hand must not
   * put a finalizer that nothing removes on other objects.
   */
  private static boolean isBatchJobs(JsonNode resource) {
    return Api.GROUP.equals(resource.path("group").asText())
        && JOBS.equals(resource.path("resource").asText());
  }

  /** The JSON patch that adds the finalizer to {@code finalizers}, or null when it is there. */
  private static ArrayNode finalizerPatch(JsonNode finalizers) {
    ObjectNode add = JSON.createObjectNode().put("op", "add");
    if (finalizers.isArray()) {
      for (JsonNode f : finalizers) {
        if (Finalizers.RESERVATION.equals(f.asText())) {
          return null;
        }
      }
      add.put("path", "/metadata/finalizers/-").put("value", Finalizers.RESERVATION);
    } else {
      add.put("path", "/metadata/finalizers");
      add.putArray("value").add(Finalizers.RESERVATION);
    }
    return JSON.createArrayNode().add(add);
  }

  private static VisibilityApi.Answer refusal(String message) {
    ObjectNode status = JSON.createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
    status.put("message", message).put("reason", "BadRequest").put("code", 400);
    return new VisibilityApi.Answer(400, JSON_TYPE, bytes(status));
  }

  private static byte[] bytes(JsonNode node) {
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
