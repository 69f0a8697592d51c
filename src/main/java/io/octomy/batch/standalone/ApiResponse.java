package io.octomy.batch.standalone;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An answer that is not a watch: status code, content type, body (whole, or a list written in
 * pieces: {@link AnswerBody}), and the warnings sent as {@code Warning: 299 - "..."} headers
 * (kubectl prints each as {@code Warning: ...}).
 */
record ApiResponse(int status, String contentType, AnswerBody body, List<String> warnings) {

  ApiResponse {
    // As the real server's NewWarningHeader: a warning with a control character (an unknown field
    // named with one) is not sent, where the header could not carry it and the answer would fail.
    warnings = warnings.stream().filter(w -> w.chars().noneMatch(Character::isISOControl)).toList();
  }

  ApiResponse(int status, String contentType, byte[] body) {
    this(status, contentType, new AnswerBody.Whole(body), List.of());
  }

  /** The body as one array (built now when it is written in pieces). */
  byte[] bytes() {
    return body.bytes();
  }

  /** This answer with one more warning. */
  ApiResponse warn(String warning) {
    List<String> all = new ArrayList<>(warnings);
    all.add(warning);
    return new ApiResponse(status, contentType, body, all);
  }

  /**
   * The value of the {@code Warning} header for one warning: RFC 7234 warn-code 299 with agent "-",
   * as the real API server writes them.
   */
  static String warningHeader(String warning) {
    return "299 - \"" + warning.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static ApiResponse json(int status, String json) {
    return new ApiResponse(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }

  static ApiResponse text(int status, String text) {
    return new ApiResponse(
        status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
  }
}
