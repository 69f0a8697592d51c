package io.octomy.batch.standalone;

import io.octomy.batch.apiserver.DelegatedGroup;
import io.octomy.batch.controller.visibility.VisibilityApi;
import java.util.List;
import java.util.Map;

/**
 * The visibility API on the embedded server: the same paths as the controller's aggregated API on a
 * cluster, for the one user of standalone mode (who may see everything).
 */
final class VisibilityGroup implements DelegatedGroup {

  private final VisibilityApi api;

  VisibilityGroup(VisibilityApi api) {
    this.api = api;
  }

  @Override
  public String group() {
    return VisibilityApi.GROUP;
  }

  @Override
  public String version() {
    return VisibilityApi.VERSION;
  }

  @Override
  public List<Resource> resources() {
    return List.of(
        new Resource("pendingjobs", "PendingJob", true, List.of("get", "list")),
        new Resource("fitreviews", "FitReview", true, List.of("create")),
        new Resource("joblogs", "JobLog", true, List.of("get")));
  }

  @Override
  public Reply serve(
      String method, String path, Map<String, String> query, String accept, byte[] body) {
    VisibilityApi.Answer r =
        api.handle(
            new VisibilityApi.Call(method, path, query, accept, body),
            VisibilityApi.Access.EVERYTHING);
    return new Reply(r.status(), r.contentType(), r.body());
  }
}
