package io.octomy.batch.standalone;

/**
 * {@code /openapi/v2} and {@code /openapi/v3}.
 *
 * <p>kubectl (1.27+) validates manifests on the client unless the server says, through its
 * OpenAPI v3 document, that it validates fields itself. It first asks {@code /openapi/v3}; a 404
 * makes it fall back to {@code /openapi/v2}, which it reads as protobuf. An empty protobuf
 * message is a valid, empty OpenAPI v2 {@code Document}: kubectl then finds no schema for our
 * kinds and skips client-side checks, and the server's own admission (schema + CEL) answers
 * 422 for a bad manifest, exactly as a real cluster would. Clients asking for JSON get an
 * equally empty Swagger document.
 */
final class OpenApiDocs {

    /** What kube-openapi answers protobuf with (the '@' of the requested type is not a valid MIME token). */
    static final String PROTOBUF = "application/octet-stream";

    private OpenApiDocs() {}

    static ApiResponse v2(String accept) {
        if (accept != null && accept.contains("protobuf")) {
            return new ApiResponse(200, PROTOBUF, new byte[0]);
        }
        return ApiResponse.json(200,
                "{\"swagger\":\"2.0\",\"info\":{\"title\":\"octomy-batch standalone\",\"version\":\"v1\"},"
                        + "\"paths\":{},\"definitions\":{}}");
    }

    static ApiResponse v3() {
        return ApiResponse.json(404, ApiException.status(404, "NotFound",
                "the server could not find the requested resource", null, null, java.util.List.of()).toString());
    }
}
