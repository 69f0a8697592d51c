package io.octomy.batch.standalone;

import java.nio.charset.StandardCharsets;

/** A complete (non-streaming) answer: status code, content type and body. */
record ApiResponse(int status, String contentType, byte[] body) {

  static ApiResponse json(int status, String json) {
    return new ApiResponse(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }

  static ApiResponse text(int status, String text) {
    return new ApiResponse(
        status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
  }
}
