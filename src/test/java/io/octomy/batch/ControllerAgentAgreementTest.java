package io.octomy.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.agent.CgroupBounds;
import io.octomy.batch.agent.HostReadings;
import io.octomy.batch.agent.NodeStatusComposer;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.controller.SnapshotBuilder;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same BatchNode, fed to the agent (which writes its status: offers and Ready) and to the
 * controller (which reads it for admission): both must read the spec the same way, defaults
 * included. A job asking for exactly the offer the agent shows is admitted there, one asking for
 * one more of anything is not, and a node whose agent cannot run its executor takes nothing.
 */
class ControllerAgentAgreementTest {

  private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");
  private static final String CPU = "octomy.io/cpu-milli";
  private static final String SU2 = "example.com/su2-processes";
  private static final HostReadings HOST = new HostReadings(16, 64L << 30, 2, 3000, 10L << 30);
  private static final Policy POLICY = Policy.defaults();

  static Stream<Arguments> nodes() {
    return Stream.of(
        Arguments.of("no spec at all", null, Executor.Process),
        Arguments.of("an empty spec", spec(null, null, null), Executor.Process),
        Arguments.of("only resources", spec(null, null, Map.of(SU2, 16L)), Executor.Process),
        Arguments.of("only ownMode", spec(null, NodeMode.Interactive, null), Executor.Process),
        Arguments.of("Interactive", spec(NodeMode.Interactive, null, null), Executor.Process),
        Arguments.of(
            "Off for others, Drone for its own",
            spec(NodeMode.Off, NodeMode.Drone, null),
            Executor.Process),
        Arguments.of("Background", spec(NodeMode.Background, null, null), Executor.Process),
        Arguments.of("no executor, Pod agent", spec(NodeMode.Drone, null, null), Executor.Pod),
        Arguments.of(
            "executor Pod, Process agent",
            withExecutor(spec(NodeMode.Drone, null, null), Executor.Pod),
            Executor.Process),
        Arguments.of(
            "executor Pod, Pod agent",
            withExecutor(spec(NodeMode.Drone, null, null), Executor.Pod),
            Executor.Pod));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void controllerAndAgentReadTheNodeAlike(String name, BatchNodeSpec spec, Executor agent) {
    NodeStatusComposer composer =
        new NodeStatusComposer(POLICY.modes(), CgroupBounds.NONE, Map.of(), agent);
    BatchNodeStatus status = composer.compose(HOST, spec, Map.of(), List.of(), null, NOW);
    BatchNode node = new BatchNode();
    node.setMetadata(new ObjectMetaBuilder().withName("ws-7").build());
    node.setSpec(spec);
    node.setStatus(status);

    NodeView view = SnapshotBuilder.view(node);
    assertThat(POLICY.modes().offer(view.mode(), status.getCapacity()))
        .as("offer for others' work")
        .isEqualTo(status.getOffer().getOthers());
    assertThat(POLICY.modes().offer(view.ownMode(), status.getCapacity()))
        .as("offer for the node's own work")
        .isEqualTo(status.getOffer().getOwn());

    boolean agentRunsIt = BatchNodeSpec.executorOf(spec) == agent;
    assertThat(Conditions.isTrue(status.getConditions(), ConditionTypes.READY))
        .as("Ready says whether this agent runs the node's executor")
        .isEqualTo(agentRunsIt);
    assertThat(view.ready()).isEqualTo(agentRunsIt);

    for (boolean own : List.of(false, true)) {
      Map<String, Long> offer = own ? status.getOffer().getOwn() : status.getOffer().getOthers();
      NodeMode mode = own ? view.ownMode() : view.mode();
      boolean takesWork = agentRunsIt && mode != NodeMode.Off;
      Decision exact = decide(view, offer, own, 0);
      assertThat(exact instanceof Decision.Admit)
          .as(
              "%s work asking for exactly the shown offer %s: %s",
              own ? "own" : "others'", offer, exact)
          .isEqualTo(takesWork);
      Decision more = decide(view, offer, own, 1);
      assertThat(more).isInstanceOf(Decision.Wait.class);
      assertThat(more.reason()).isEqualTo(Reason.NoNodeFits);
    }
  }

  /** One job asking for the offer plus {@code extra} of each resource. */
  private static Decision decide(NodeView node, Map<String, Long> offer, boolean own, long extra) {
    Map<String, Long> requests = new HashMap<>();
    offer.forEach((k, v) -> requests.put(k, v + extra));
    if (extra == 0) {
      requests.values().removeIf(v -> v == 0); // a request of 0 constrains nothing
    }
    JobView job =
        new JobView(
            "studio",
            "j",
            1,
            requests,
            Map.of(),
            List.of(),
            List.of(),
            null,
            own ? node.name() : null,
            JobPhase.Queued,
            null,
            NOW,
            List.of());
    Snapshot snapshot = new Snapshot(List.of(job), List.of(node), POLICY, NOW);
    return AdmissionPass.decide(snapshot).decisions().get(new JobKey("studio", "j"));
  }

  private static BatchNodeSpec spec(NodeMode mode, NodeMode ownMode, Map<String, Long> resources) {
    BatchNodeSpec s = new BatchNodeSpec();
    s.setMode(mode);
    s.setOwnMode(ownMode);
    s.setResources(resources);
    return s;
  }

  private static BatchNodeSpec withExecutor(BatchNodeSpec s, Executor executor) {
    s.setExecutor(executor);
    return s;
  }
}
