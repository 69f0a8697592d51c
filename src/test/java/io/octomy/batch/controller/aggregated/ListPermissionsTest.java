package io.octomy.batch.controller.aggregated;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.controller.visibility.VisibilityApi;
import io.octomy.batch.fixtures.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each answer of the API server's authorizer is reused for ten seconds, yes and no alike. */
class ListPermissionsTest {

  private final TestClock clock = TestClock.standing();
  private final List<String> asked = new ArrayList<>();
  private final ListPermissions permissions =
      new ListPermissions(
          (caller, ns) -> {
            asked.add(caller.user() + "@" + ns);
            return "a".equals(ns);
          },
          clock);

  private static final Caller ALICE = new Caller("alice", "", List.of("team"), Map.of());

  @Test
  void anAnswerIsReusedWithinItsTimeAndAskedAgainAfter() {
    VisibilityApi.Access access = permissions.of(ALICE);
    assertThat(access.mayList("a")).isTrue();
    assertThat(access.mayList("b")).isFalse();
    assertThat(access.mayList(null)).isFalse();
    clock.advance(ListPermissions.TTL.minus(Duration.ofMillis(1)));
    assertThat(access.mayList("a")).isTrue();
    assertThat(access.mayList("b")).isFalse();
    assertThat(asked).containsExactly("alice@a", "alice@b", "alice@null");
    clock.advance(Duration.ofMillis(1));
    assertThat(access.mayList("a")).isTrue();
    assertThat(asked).containsExactly("alice@a", "alice@b", "alice@null", "alice@a");
  }

  @Test
  void anotherCallerOrGroupIsAskedForItself() {
    permissions.of(ALICE).mayList("a");
    permissions.of(new Caller("alice", "", List.of("team", "admins"), Map.of())).mayList("a");
    permissions.of(new Caller("bob", "", List.of("team"), Map.of())).mayList("a");
    assertThat(asked).containsExactly("alice@a", "alice@a", "bob@a");
  }
}
