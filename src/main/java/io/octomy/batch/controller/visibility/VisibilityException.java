package io.octomy.batch.controller.visibility;

/**
 * A visibility request that cannot be answered, with the HTTP code, the Kubernetes reason and a
 * message that says what to do instead; answered as a {@code Status}.
 */
public final class VisibilityException extends RuntimeException {

  private final int code;
  private final String reason;

  public VisibilityException(int code, String reason, String message) {
    super(message);
    this.code = code;
    this.reason = reason;
  }

  public int code() {
    return code;
  }

  public String reason() {
    return reason;
  }

  static VisibilityException notFound(String message) {
    return new VisibilityException(404, "NotFound", message);
  }

  static VisibilityException badRequest(String message) {
    return new VisibilityException(400, "BadRequest", message);
  }

  static VisibilityException forbidden(String message) {
    return new VisibilityException(403, "Forbidden", message);
  }
}
