package io.octomy.batch.apiserver;

import java.util.List;
import java.util.Map;

/**
 * One HTTP request, detached from the HTTP library so that routing and CRUD logic can be tested and
 * reasoned about on their own.
 *
 * @param method GET, POST, PUT, PATCH, DELETE
 * @param path URL path without the query
 * @param query decoded query parameters (first value of each)
 * @param accept the Accept header, or {@code ""}
 * @param contentType the Content-Type header, or {@code ""}
 * @param body the request body (empty when none)
 * @param userAgent the User-Agent header, or {@code ""}: names the field manager of a write that
 *     names none
 */
record ApiRequest(
    String method,
    String path,
    Map<String, String> query,
    String accept,
    String contentType,
    byte[] body,
    String userAgent) {

  /** A request from inside the server, which has no User-Agent. */
  ApiRequest(
      String method,
      String path,
      Map<String, String> query,
      String accept,
      String contentType,
      byte[] body) {
    this(method, path, query, accept, contentType, body, "");
  }

  String param(String name) {
    return query.get(name);
  }

  boolean flag(String name) {
    String v = query.get(name);
    return v != null && (v.equals("true") || v.equals("1"));
  }

  boolean dryRun() {
    return "All".equals(query.get("dryRun"));
  }

  /**
   * Refuses a write whose {@code dryRun} is anything but {@code All}, as a real server does (422):
   * taken as no dry run, a {@code dryRun=true} would store the object and run the job.
   *
   * @param optionsKind CreateOptions, UpdateOptions, PatchOptions or DeleteOptions, for the message
   */
  void requireKnownDryRun(String optionsKind) {
    String value = query.get("dryRun");
    if (value != null && !value.equals("All")) {
      throw unsupportedDryRun(optionsKind, value);
    }
  }

  static ApiException unsupportedDryRun(String optionsKind, String value) {
    String detail =
        "Unsupported value: [\""
            + value.replace("\\", "\\\\").replace("\"", "\\\"")
            + "\"]: supported values: \"All\"";
    return new ApiException(
        422,
        "Invalid",
        optionsKind + ".meta.k8s.io \"\" is invalid: dryRun: " + detail,
        optionsKind,
        "",
        List.of(new ApiException.Cause("dryRun", detail, "FieldValueNotSupported")));
  }
}
