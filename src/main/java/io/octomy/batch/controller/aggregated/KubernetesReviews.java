package io.octomy.batch.controller.aggregated;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.Api;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The API server's own answers: TokenReview for a bearer token, SubjectAccessReview for a
 * permission (needs {@code system:auth-delegator}, which the chart binds).
 */
public final class KubernetesReviews
    implements DelegatedAuthentication.TokenReviewer, ListPermissions.Reviewer {

  private final KubernetesClient client;

  public KubernetesReviews(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<Caller> review(String token) {
    TokenReview review =
        client
            .authentication()
            .v1()
            .tokenReviews()
            .create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build());
    if (review.getStatus() == null || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
      return Optional.empty();
    }
    UserInfo u = review.getStatus().getUser();
    return Optional.of(
        new Caller(
            u.getUsername(),
            u.getUid() == null ? "" : u.getUid(),
            u.getGroups() == null ? List.of() : u.getGroups(),
            u.getExtra() == null ? Map.of() : u.getExtra()));
  }

  @Override
  public boolean mayList(Caller caller, String namespace) {
    SubjectAccessReview review =
        client
            .authorization()
            .v1()
            .subjectAccessReview()
            .create(
                new SubjectAccessReviewBuilder()
                    .withNewSpec()
                    .withUser(caller.user())
                    .withUid(caller.uid().isEmpty() ? null : caller.uid())
                    .withGroups(caller.groups())
                    .withExtra(caller.extra().isEmpty() ? null : caller.extra())
                    .withNewResourceAttributes()
                    .withGroup(Api.GROUP)
                    .withResource("batchjobs")
                    .withVerb("list")
                    .withNamespace(namespace == null ? "" : namespace)
                    .endResourceAttributes()
                    .endSpec()
                    .build());
    return review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAllowed());
  }
}
