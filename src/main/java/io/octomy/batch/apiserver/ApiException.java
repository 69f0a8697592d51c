package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * A failed API request, carried up to the HTTP layer and answered as a Kubernetes {@code Status}
 * object, because kubectl and fabric8 branch on {@code reason} and {@code code} (e.g. apply decides
 * between create and patch on a 404 {@code NotFound}).
 */
final class ApiException extends RuntimeException {

  /** One invalid field, as listed in {@code status.details.causes}. */
  record Cause(String field, String message, String reason) {}

  private final int code;
  private final String reason;
  private final String kindOrResource;
  private final String name;
  private final List<Cause> causes;

  ApiException(int code, String reason, String message) {
    this(code, reason, message, null, null, List.of());
  }

  ApiException(
      int code,
      String reason,
      String message,
      String kindOrResource,
      String name,
      List<Cause> causes) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.kindOrResource = kindOrResource;
    this.name = name;
    this.causes = List.copyOf(causes);
  }

  int code() {
    return code;
  }

  static ApiException notFound(ResourceType type, String name) {
    return new ApiException(
        404,
        "NotFound",
        type.qualifiedPlural() + " \"" + name + "\" not found",
        type.plural(),
        name,
        List.of());
  }

  static ApiException alreadyExists(ResourceType type, String name) {
    return new ApiException(
        409,
        "AlreadyExists",
        type.qualifiedPlural() + " \"" + name + "\" already exists",
        type.plural(),
        name,
        List.of());
  }

  static ApiException conflict(ResourceType type, String name) {
    return new ApiException(
        409,
        "Conflict",
        "Operation cannot be fulfilled on "
            + type.qualifiedPlural()
            + " \""
            + name
            + "\": the object has been modified; please apply your changes to the latest version and try again",
        type.plural(),
        name,
        List.of());
  }

  static ApiException badRequest(String message) {
    return new ApiException(400, "BadRequest", message);
  }

  /**
   * The 422 answer of a real API server: {@code <Kind>.<group> "name" is invalid: field: message,
   * ...}.
   */
  static ApiException invalid(ResourceType type, String name, List<Cause> causes) {
    StringBuilder message = new StringBuilder();
    message
        .append(type.kind())
        .append(type.group().isEmpty() ? "" : "." + type.group())
        .append(" \"")
        .append(name)
        .append("\" is invalid: ");
    if (causes.size() > 1) {
      message.append('[');
    }
    for (int i = 0; i < causes.size(); i++) {
      if (i > 0) {
        message.append(", ");
      }
      message.append(causes.get(i).field()).append(": ").append(causes.get(i).message());
    }
    if (causes.size() > 1) {
      message.append(']');
    }
    return new ApiException(422, "Invalid", message.toString(), type.kind(), name, causes);
  }

  /** This error as a {@code meta.k8s.io/v1 Status}. */
  ObjectNode toStatus() {
    return status(code, reason, getMessage(), kindOrResource, name, causes);
  }

  static ObjectNode status(
      int code, String reason, String message, String kind, String name, List<Cause> causes) {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.put("kind", "Status").put("apiVersion", "v1");
    status.putObject("metadata");
    status.put("status", code < 400 ? "Success" : "Failure");
    status.put("message", message);
    if (reason != null) {
      status.put("reason", reason);
    }
    if (kind != null || name != null || !causes.isEmpty()) {
      ObjectNode details = status.putObject("details");
      if (name != null) {
        details.put("name", name);
      }
      if (kind != null) {
        details.put("kind", kind);
      }
      if (!causes.isEmpty()) {
        ArrayNode list = details.putArray("causes");
        for (Cause c : causes) {
          list.addObject()
              .put("reason", c.reason())
              .put("message", c.message())
              .put("field", c.field());
        }
      }
    }
    status.put("code", code);
    return status;
  }
}
