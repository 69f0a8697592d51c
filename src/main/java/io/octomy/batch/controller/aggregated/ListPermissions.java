package io.octomy.batch.controller.aggregated;

import io.octomy.batch.controller.visibility.VisibilityApi;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Delegated authorization: whether a caller may {@code list} {@code batchjobs.batch.octomy.io} in a
 * namespace (or in every namespace), as the API server's authorizer answers a SubjectAccessReview.
 * Answers are kept for {@link #TTL}, as a generic API server's delegating authorizer keeps them, so
 * a burst of calls costs one review; a role granted or taken away counts within that time.
 */
public final class ListPermissions {

  /** How long an answer, yes or no, is reused. */
  public static final Duration TTL = Duration.ofSeconds(10);

  /** The most answers kept; past it, the expired ones are dropped, then all. */
  static final int MAX_ENTRIES = 10_000;

  /** Asks the API server (SubjectAccessReview); {@code namespace} null: every namespace. */
  public interface Reviewer {
    boolean mayList(Caller caller, String namespace);
  }

  private record ReviewKey(Caller caller, String namespace) {}

  private record ReviewAnswer(boolean allowed, Instant until) {}

  private final Reviewer reviewer;
  private final Clock clock;
  private final Map<ReviewKey, ReviewAnswer> answers = new ConcurrentHashMap<>();

  public ListPermissions(Reviewer reviewer, Clock clock) {
    this.reviewer = reviewer;
    this.clock = clock;
  }

  /** What this caller may see, for {@link VisibilityApi#handle}. */
  public VisibilityApi.Access of(Caller caller) {
    return namespace -> mayList(caller, namespace);
  }

  boolean mayList(Caller caller, String namespace) {
    Instant now = clock.instant();
    ReviewKey key = new ReviewKey(caller, namespace);
    ReviewAnswer known = answers.get(key);
    if (known != null && now.isBefore(known.until())) {
      return known.allowed();
    }
    boolean allowed = reviewer.mayList(caller, namespace);
    if (answers.size() >= MAX_ENTRIES) {
      answers.values().removeIf(a -> !now.isBefore(a.until()));
      if (answers.size() >= MAX_ENTRIES) {
        answers.clear();
      }
    }
    answers.put(key, new ReviewAnswer(allowed, now.plus(TTL)));
    return allowed;
  }
}
