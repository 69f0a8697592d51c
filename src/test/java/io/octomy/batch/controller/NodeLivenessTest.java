package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** When the controller marks a node whose agent went silent, and what it writes. */
class NodeLivenessTest {

  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Instant REPORTED = Instant.parse("2026-11-30T11:00:00Z");

  /**
   * A node as its agent left it: Ready with {@code readyStatus}, last heartbeat {@code age} ago
   * (null: none).
   */
  private static BatchNode node(String readyStatus, Duration age) {
    BatchNode n = new BatchNode();
    n.setMetadata(new ObjectMeta());
    n.getMetadata().setName("ws-1");
    if (readyStatus == null) {
      return n; // no status at all: no agent has reported
    }
    BatchNodeStatus s = new BatchNodeStatus();
    s.setHeartbeatTime(age == null ? null : Times.format(NOW.minus(age)));
    s.setConditions(
        Conditions.set(
            List.of(),
            ConditionTypes.READY,
            readyStatus,
            "AgentReporting",
            "the agent reported",
            null,
            REPORTED));
    n.setStatus(s);
    return n;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("fresh heartbeat", node("True", Duration.ofSeconds(5)), null),
        Arguments.of("one second inside the timeout", node("True", Duration.ofSeconds(29)), null),
        Arguments.of(
            "exactly at the timeout (admission's cut: not ready)",
            node("True", TIMEOUT),
            "no heartbeat from the agent for 30 s (the timeout is 30 s)"),
        Arguments.of(
            "silent for two minutes",
            node("True", Duration.ofMinutes(2)),
            "no heartbeat from the agent for 120 s (the timeout is 30 s), so no new jobs are admitted here;"
                + " jobs already running here are left alone."),
        Arguments.of(
            "Ready without any heartbeat time",
            node("True", null),
            "the agent reports Ready but no heartbeat time (the timeout is 30 s)"),
        Arguments.of(
            "already marked Unknown: not written again",
            node("Unknown", Duration.ofMinutes(2)),
            null),
        Arguments.of(
            "agent itself says False: left as it is", node("False", Duration.ofMinutes(2)), null),
        Arguments.of("no status yet", node(null, null), null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void marksOnlyAReadyNodeWhoseHeartbeatIsStale(
      String name, BatchNode node, String expectedMessage) {
    Optional<List<Condition>> marked = NodeLiveness.markedNotReporting(node, NOW, TIMEOUT);
    if (expectedMessage == null) {
      assertThat(marked).isEmpty();
      return;
    }
    assertThat(marked).isPresent();
    Condition ready = Conditions.find(marked.get(), ConditionTypes.READY);
    assertThat(ready.getStatus()).isEqualTo("Unknown");
    assertThat(ready.getReason()).isEqualTo(NodeLiveness.REASON_NOT_REPORTING);
    assertThat(ready.getMessage()).contains(expectedMessage);
    assertThat(ready.getLastTransitionTime())
        .as("a flip moves the transition time")
        .isEqualTo(Times.format(NOW));
    assertThat(node.getStatus().getConditions())
        .as("the cached node is not changed")
        .allMatch(c -> c.getStatus().equals("True"));
  }
}
