package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Optional;

/**
 * The questions a client asks about itself: {@code SelfSubjectAccessReview} and {@code
 * SelfSubjectRulesReview} ({@code kubectl auth can-i}, {@code can-i --list}) and {@code
 * SelfSubjectReview} ({@code kubectl auth whoami}). Standalone has one user, the holder of the
 * kubeconfig's token, who may do everything, as a cluster's {@code system:masters} member may:
 * every access review is allowed and the rules are {@code *} on every resource and URL.
 *
 * <p>Nothing is stored (a real server stores none of these either); a body kubectl sends as
 * protobuf is not read, since the answer does not depend on it.
 */
final class AccessReviews {

  static final String USER = KubeconfigWriter.NAME;
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String ACCESS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  private static final String RULES = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
  private static final String WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

  private final ObjectMapper json;

  AccessReviews(ObjectMapper json) {
    this.json = json;
  }

  /** The answer when {@code path} is one of the reviews, else empty. */
  Optional<ObjectNode> answer(ApiRequest req, String path) {
    String kind =
        switch (path) {
          case ACCESS -> "SelfSubjectAccessReview";
          case RULES -> "SelfSubjectRulesReview";
          case WHOAMI -> "SelfSubjectReview";
          default -> null;
        };
    if (kind == null) {
      return Optional.empty();
    }
    if (!req.method().equals("POST")) {
      throw new ApiException(
          405,
          "MethodNotAllowed",
          "the server does not allow this method on the requested resource");
    }
    ObjectNode review = F.objectNode();
    review
        .put("kind", kind)
        .put(
            "apiVersion",
            path.startsWith("/apis/authorization")
                ? "authorization.k8s.io/v1"
                : "authentication.k8s.io/v1");
    review.putObject("metadata").put("creationTimestamp", (String) null);
    JsonNode spec = spec(req);
    if (!kind.equals("SelfSubjectReview")) {
      review.set("spec", spec);
    }
    ObjectNode status = review.putObject("status");
    switch (kind) {
      case "SelfSubjectAccessReview" -> status.put("allowed", true);
      case "SelfSubjectRulesReview" -> {
        ObjectNode resources = status.putArray("resourceRules").addObject();
        resources.putArray("verbs").add("*");
        resources.putArray("apiGroups").add("*");
        resources.putArray("resources").add("*");
        ObjectNode urls = status.putArray("nonResourceRules").addObject();
        urls.putArray("verbs").add("*");
        urls.putArray("nonResourceURLs").add("*");
        status.put("incomplete", false);
      }
      default -> {
        ObjectNode user = status.putObject("userInfo");
        user.put("username", USER);
        user.putArray("groups").add("system:masters").add("system:authenticated");
      }
    }
    return Optional.of(review);
  }

  private JsonNode spec(ApiRequest req) {
    if (req.body().length == 0 || ProtobufBodies.isProtobuf(req.contentType())) {
      return F.objectNode();
    }
    try {
      JsonNode body = json.readTree(req.body());
      return body != null && body.path("spec").isObject() ? body.get("spec") : F.objectNode();
    } catch (IOException e) {
      throw ApiException.badRequest("the request body is not JSON: " + e.getMessage());
    }
  }
}
