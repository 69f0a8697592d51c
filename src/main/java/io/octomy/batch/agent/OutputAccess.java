package io.octomy.batch.agent;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who may read this node's job output, decided as a kubelet decides who may read its logs: the
 * bearer token is reviewed by the API server (TokenReview, for this node's audience only), and the
 * user it names must be allowed {@code get} on {@code batchnodes/log} of this node
 * (SubjectAccessReview). The chart grants that to the controller alone. Verdicts are kept for
 * {@link #TTL}, so a burst of reads costs one review.
 */
public final class OutputAccess {

  /** How long a verdict, yes or no, is reused. */
  static final Duration TTL = Duration.ofSeconds(10);

  private static final int MAX_ENTRIES = 1_000;

  /** The user a token belongs to, as the API server's TokenReview names it. */
  public record ReviewedUser(
      String name, String uid, List<String> groups, Map<String, List<String>> extra) {}

  /** The API server's answers. */
  public interface OutputReviewer {
    /** The token's user when the API server accepts it for {@code audience}; empty otherwise. */
    Optional<ReviewedUser> authenticate(String token, String audience);

    /** Whether {@code user} may {@code get} {@code batchnodes/log} named {@code node}. */
    boolean mayReadOutput(ReviewedUser user, String node);
  }

  /** What a request gets. */
  public enum Verdict {
    ALLOWED,
    /** No token, or one the API server does not accept for this node: 401. */
    UNAUTHENTICATED,
    /** A known user without the permission: 403. */
    FORBIDDEN
  }

  private record KeptVerdict(Verdict verdict, Instant until) {}

  private final String node;
  private final String audience;
  private final OutputReviewer reviewer;
  private final Clock clock;
  private final Map<String, KeptVerdict> verdicts = new ConcurrentHashMap<>();

  public OutputAccess(String node, String audience, OutputReviewer reviewer, Clock clock) {
    this.node = node;
    this.audience = audience;
    this.reviewer = reviewer;
    this.clock = clock;
  }

  /** The verdict for a request's {@code Authorization} header (null when it had none). */
  public Verdict check(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Verdict.UNAUTHENTICATED;
    }
    String token = authorization.substring(7).trim();
    if (token.isEmpty()) {
      return Verdict.UNAUTHENTICATED;
    }
    Instant now = clock.instant();
    String key = digest(token); // the token itself is kept nowhere
    KeptVerdict known = verdicts.get(key);
    if (known != null && now.isBefore(known.until())) {
      return known.verdict();
    }
    Verdict v =
        reviewer
            .authenticate(token, audience)
            .map(u -> reviewer.mayReadOutput(u, node) ? Verdict.ALLOWED : Verdict.FORBIDDEN)
            .orElse(Verdict.UNAUTHENTICATED);
    if (verdicts.size() >= MAX_ENTRIES) {
      verdicts.clear();
    }
    verdicts.put(key, new KeptVerdict(v, now.plus(TTL)));
    return v;
  }

  private static String digest(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
