package io.octomy.batch.agent;

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
 * {@link OutputAccess}'s questions put to the API server with the agent's own credentials: the
 * chart's agent role may create {@code tokenreviews} and {@code subjectaccessreviews}.
 */
public final class KubernetesOutputReviews implements OutputAccess.OutputReviewer {

  private final KubernetesClient client;

  public KubernetesOutputReviews(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<OutputAccess.ReviewedUser> authenticate(String token, String audience) {
    TokenReview review =
        client
            .authentication()
            .v1()
            .tokenReviews()
            .create(
                new TokenReviewBuilder()
                    .withNewSpec()
                    .withToken(token)
                    .withAudiences(audience)
                    .endSpec()
                    .build());
    if (review.getStatus() == null || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
      return Optional.empty();
    }
    UserInfo u = review.getStatus().getUser();
    return Optional.of(
        new OutputAccess.ReviewedUser(
            u.getUsername(),
            u.getUid(),
            u.getGroups() == null ? List.of() : u.getGroups(),
            u.getExtra() == null ? Map.of() : u.getExtra()));
  }

  @Override
  public boolean mayReadOutput(OutputAccess.ReviewedUser user, String node) {
    SubjectAccessReview review =
        client
            .authorization()
            .v1()
            .subjectAccessReview()
            .create(
                new SubjectAccessReviewBuilder()
                    .withNewSpec()
                    .withUser(user.name())
                    .withUid(user.uid() == null || user.uid().isEmpty() ? null : user.uid())
                    .withGroups(user.groups())
                    .withExtra(user.extra().isEmpty() ? null : user.extra())
                    .withNewResourceAttributes()
                    .withGroup(Api.GROUP)
                    .withResource("batchnodes")
                    .withSubresource("log")
                    .withVerb("get")
                    .withName(node)
                    .endResourceAttributes()
                    .endSpec()
                    .build());
    return review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAllowed());
  }
}
