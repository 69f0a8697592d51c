package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends each authenticated request to the right place: version, health, discovery, OpenAPI, a
 * resource's CRUD, or a watch. Every failure leaves as a Kubernetes {@code Status}.
 */
final class ApiRouter {

  private static final Logger LOG = LoggerFactory.getLogger(ApiRouter.class);

  private final ResourceRegistry registry;
  private final Discovery discovery;
  private final ResourceHandler resources;
  private final WatchHandler watches;
  private final ObjectMapper json;
  private final Supplier<String> serverAddress;
  private final List<DelegatedGroup> delegated = new CopyOnWriteArrayList<>();
  private final AccessReviews reviews;

  ApiRouter(
      ResourceRegistry registry,
      ResourceHandler resources,
      WatchHandler watches,
      ObjectMapper json,
      Supplier<String> serverAddress) {
    this.registry = registry;
    this.discovery = new Discovery(registry);
    this.resources = resources;
    this.watches = watches;
    this.json = json;
    this.serverAddress = serverAddress;
    this.reviews = new AccessReviews(json);
  }

  /**
   * Serves a group version by handing its requests to {@code group} (see {@link DelegatedGroup}).
   */
  void delegate(DelegatedGroup group) {
    delegated.add(group);
    discovery.delegate(group);
  }

  ApiResponse handle(ApiRequest req) {
    try {
      return route(req);
    } catch (ApiException e) {
      return ApiResponse.json(e.code(), e.toStatus().toString());
    } catch (RuntimeException e) {
      LOG.error("{} {} failed", req.method(), req.path(), e);
      return ApiResponse.json(
          500,
          ApiException.status(
                  500,
                  "InternalError",
                  "Internal error occurred: " + e.getMessage(),
                  null,
                  null,
                  List.of())
              .toString());
    }
  }

  private ApiResponse route(ApiRequest req) {
    String path =
        req.path().length() > 1 && req.path().endsWith("/")
            ? req.path().substring(0, req.path().length() - 1)
            : req.path();
    switch (path) {
      case "/version":
        return ok(Discovery.version());
      case "/healthz", "/readyz", "/livez":
        return ApiResponse.text(200, "ok");
      case "/api":
        return ok(discovery.coreVersions(serverAddress.get()));
      case "/apis":
        return ok(discovery.groups());
      case "/openapi/v2":
        return OpenApiDocs.v2(req.accept());
      default:
        break;
    }
    if (path.equals("/openapi/v3")) {
      return ok(OpenApiDocs.v3Root(registry));
    }
    if (path.startsWith("/openapi/v3/apis/")) {
      String[] gv = path.substring("/openapi/v3/apis/".length()).split("/");
      return found(
          gv.length == 2 ? OpenApiDocs.v3GroupVersion(registry, gv[0], gv[1]) : Optional.empty());
    }
    if (path.startsWith("/openapi/v3/")) {
      throw notFound();
    }
    Optional<ApiResponse> handed = delegated(req, path);
    if (handed.isPresent()) {
      return handed.get();
    }
    Optional<? extends JsonNode> review = reviews.answer(req, path);
    if (review.isPresent()) {
      return withStatus(201, review.get());
    }
    String[] parts = path.substring(1).split("/");
    if (parts.length == 2 && parts[0].equals("api")) {
      return found(discovery.resources("", parts[1]));
    }
    if (parts.length == 2 && parts[0].equals("apis")) {
      return found(discovery.group(parts[1]));
    }
    if (parts.length == 3 && parts[0].equals("apis")) {
      return found(discovery.resources(parts[1], parts[2]));
    }
    RequestPath p = RequestPath.parse(path, registry).orElseThrow(ApiRouter::notFound);
    ResourceType type =
        registry.find(p.group(), p.version(), p.plural()).orElseThrow(ApiRouter::notFound);
    if (registry.isListedOnly(type) && !req.method().equals("GET")) {
      throw new ApiException(
          405,
          "MethodNotAllowed",
          "standalone mode runs no "
              + type.kind()
              + "s: the kind is listed only so that kubectl apply --prune finds it; run work as a"
              + " BatchJob (batch.octomy.io/v1alpha1) instead");
    }
    ApiResponse answer = resources.handle(req, p, type);
    return type.key().equals("/endpoints")
        ? answer.warn("v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice")
        : answer;
  }

  /** The answer of a delegated group for a path below its {@code /apis/GROUP/VERSION/}. */
  private Optional<ApiResponse> delegated(ApiRequest req, String path) {
    for (DelegatedGroup g : delegated) {
      String prefix = "/apis/" + g.group() + "/" + g.version() + "/";
      if (path.startsWith(prefix)) {
        DelegatedGroup.Reply r =
            g.serve(
                req.method(),
                path.substring(prefix.length() - 1),
                req.query(),
                req.accept(),
                req.body());
        return Optional.of(new ApiResponse(r.status(), r.contentType(), r.body()));
      }
    }
    return Optional.empty();
  }

  /** Starts a watch, or answers why it cannot start (as a complete response). */
  Optional<ApiResponse> watch(ApiRequest req, WatchSink sink) {
    try {
      RequestPath p = RequestPath.parse(req.path(), registry).orElseThrow(ApiRouter::notFound);
      ResourceType type =
          registry.find(p.group(), p.version(), p.plural()).orElseThrow(ApiRouter::notFound);
      watches.watch(req, p, type, sink);
      return Optional.empty();
    } catch (ApiException e) {
      return Optional.of(ApiResponse.json(e.code(), e.toStatus().toString()));
    }
  }

  private static ApiException notFound() {
    return new ApiException(404, "NotFound", "the server could not find the requested resource");
  }

  private ApiResponse found(Optional<? extends JsonNode> doc) {
    return ok(doc.orElseThrow(ApiRouter::notFound));
  }

  private ApiResponse ok(JsonNode body) {
    return withStatus(200, body);
  }

  private ApiResponse withStatus(int status, JsonNode body) {
    try {
      return new ApiResponse(status, "application/json", json.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
