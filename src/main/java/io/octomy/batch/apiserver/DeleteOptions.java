package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;

/**
 * What a DELETE asks for, from its query and its {@code DeleteOptions} body (kubectl sends the
 * options in the body): the preconditions, whether it is a dry run, and what becomes of the
 * object's dependents.
 *
 * @param propagation the {@code propagationPolicy}; {@code orphanDependents: true} (the older
 *     spelling) means {@link Propagation#ORPHAN}
 */
record DeleteOptions(Preconditions preconditions, boolean dryRun, Propagation propagation) {

  /** What happens to the objects that name the deleted one in their ownerReferences. */
  enum Propagation {
    /** The object goes now; the garbage collector removes its dependents afterwards. */
    BACKGROUND,
    /** The dependents go first; the object waits with the {@code foregroundDeletion} finalizer. */
    FOREGROUND,
    /** The dependents stay, without the ownerReference; the object waits with {@code orphan}. */
    ORPHAN
  }

  static final DeleteOptions NONE =
      new DeleteOptions(Preconditions.NONE, false, Propagation.BACKGROUND);

  static DeleteOptions of(ApiRequest req, ObjectMapper json) {
    JsonNode options = body(req, json);
    JsonNode p = options.path("preconditions");
    Preconditions preconditions =
        new Preconditions(p.path("uid").asText(""), p.path("resourceVersion").asText(""));
    req.requireKnownDryRun("DeleteOptions");
    boolean dryRun = req.dryRun();
    for (JsonNode d : options.path("dryRun")) {
      if (!d.asText().equals("All")) {
        throw ApiRequest.unsupportedDryRun("DeleteOptions", d.asText());
      }
      dryRun = true;
    }
    String policy =
        req.param("propagationPolicy") != null
            ? req.param("propagationPolicy")
            : options.path("propagationPolicy").asText("");
    boolean orphan =
        "true".equals(req.param("orphanDependents"))
            || options.path("orphanDependents").asBoolean(false);
    return new DeleteOptions(preconditions, dryRun, propagation(policy, orphan));
  }

  private static Propagation propagation(String policy, boolean orphan) {
    return switch (policy) {
      case "" -> orphan ? Propagation.ORPHAN : Propagation.BACKGROUND;
      case "Background" -> Propagation.BACKGROUND;
      case "Foreground" -> Propagation.FOREGROUND;
      case "Orphan" -> Propagation.ORPHAN;
      default -> {
        String why =
            "Unsupported value: \""
                + policy
                + "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"";
        throw new ApiException(
            422,
            "Invalid",
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: " + why,
            "DeleteOptions",
            "",
            List.of(new ApiException.Cause("propagationPolicy", why, "FieldValueNotSupported")));
      }
    };
  }

  private static JsonNode body(ApiRequest req, ObjectMapper json) {
    if (req.body().length == 0 || ProtobufBodies.isProtobuf(req.contentType())) {
      return json.createObjectNode();
    }
    try {
      JsonNode options = json.readTree(req.body());
      return options == null || !options.isObject() ? json.createObjectNode() : options;
    } catch (IOException e) {
      throw ApiException.badRequest("the DeleteOptions body is not valid JSON: " + e.getMessage());
    }
  }
}
