package io.octomy.batch.apiserver;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
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
    warnings =
        capped(
            warnings.stream().filter(w -> w.chars().noneMatch(Character::isISOControl)).toList());
  }

  /** Characters of warnings an answer carries before they are cut, as the real server's. */
  static final int WARNINGS_TOTAL = 4 * 1024;

  static final int WARNING_CUT = 256;

  /**
   * As the real server's warning recorder: each warning once; past {@value #WARNINGS_TOTAL}
   * characters in all, each cut to {@value #WARNING_CUT} and the rest left out once the total is
   * reached. Before, a write of 5,000 unknown fields was answered with 5,000 headers, more than a
   * client reads (the JDK's stops at 384 KiB), so a stored write looked unanswered.
   */
  private static List<String> capped(List<String> warnings) {
    List<String> distinct = List.copyOf(new LinkedHashSet<>(warnings));
    if (distinct.stream().mapToInt(ApiResponse::length).sum() <= WARNINGS_TOTAL) {
      return distinct;
    }
    List<String> kept = new ArrayList<>();
    int written = 0;
    for (String w : distinct) {
      if (written >= WARNINGS_TOTAL) {
        break;
      }
      String cut =
          length(w) <= WARNING_CUT ? w : w.substring(0, w.offsetByCodePoints(0, WARNING_CUT));
      kept.add(cut);
      written += length(cut);
    }
    return List.copyOf(kept);
  }

  private static int length(String s) {
    return s.codePointCount(0, s.length());
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
