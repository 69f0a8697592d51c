package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Condition;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Says so on a BatchNode whose agent stopped reporting. Admission already treats such a node as not
 * ready (its heartbeat is older than the policy's timeout); this makes the node's own status agree,
 * so {@code kubectl get bn} shows READY Unknown, as Kubernetes' node lifecycle controller does for
 * a silent kubelet. The agent sets Ready back to True with its next report.
 */
public final class NodeLiveness {

  /** Reason of the Ready condition the controller writes for a silent agent. */
  public static final String REASON_NOT_REPORTING = "AgentNotReporting";

  private NodeLiveness() {}

  /**
   * The node's conditions with Ready set to Unknown, when its status says Ready=True but the
   * heartbeat is not fresh ({@link NodeView#heartbeatFresh}, the cut admission uses); empty when
   * the status already tells the truth, so a marked node is not written again.
   */
  static Optional<List<Condition>> markedNotReporting(
      BatchNode node, Instant now, Duration timeout) {
    var status = node.getStatus();
    if (status == null || !Conditions.isTrue(status.getConditions(), ConditionTypes.READY)) {
      return Optional.empty();
    }
    Instant heartbeat = Times.parse(status.getHeartbeatTime());
    if (NodeView.heartbeatFresh(heartbeat, now, timeout)) {
      return Optional.empty();
    }
    String since =
        heartbeat == null
            ? "the agent reports Ready but no heartbeat time"
            : "no heartbeat from the agent for "
                + Duration.between(heartbeat, now).toSeconds()
                + " s";
    String message =
        since
            + " (the timeout is "
            + timeout.toSeconds()
            + " s), so no new jobs are admitted"
            + " here; jobs already running here are left alone.";
    return Optional.of(
        Conditions.set(
            status.getConditions(),
            ConditionTypes.READY,
            ConditionTypes.UNKNOWN,
            REASON_NOT_REPORTING,
            message,
            null,
            now));
  }
}
