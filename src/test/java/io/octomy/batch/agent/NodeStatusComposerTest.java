package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Condition;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The whole BatchNode status from fixed inputs: no client, no clock, no machine. */
class NodeStatusComposerTest {

  private static final long GIB = 1L << 30;
  private static final String CPU = MeasuredResources.CPU_MILLI;
  private static final String MEM = MeasuredResources.MEMORY_BYTES;
  private static final String GPU = MeasuredResources.GPU;
  private static final String SU2 = "example.com/su2-processes";
  private static final Instant T0 = Instant.parse("2030-05-01T10:00:00.700Z");

  /** 16 processors, 64 GiB, 2 GPUs; 3 cores and 10 GiB in use. */
  private static final HostReadings HOST = new HostReadings(16, 64 * GIB, 2, 3000, 10 * GIB);

  private final NodeStatusComposer composer =
      new NodeStatusComposer(ModeTable.defaults(), CgroupBounds.NONE, Map.of(), Executor.Process);

  private static BatchNodeSpec spec(NodeMode mode, NodeMode ownMode, Map<String, Long> resources) {
    BatchNodeSpec s = new BatchNodeSpec();
    s.setMode(mode);
    s.setOwnMode(ownMode);
    s.setResources(resources);
    return s;
  }

  private BatchNodeStatus compose(BatchNodeSpec spec) {
    return composer.compose(HOST, spec, Map.of(), List.of(), null, T0);
  }

  @Test
  void interactiveOffersHalfTheCoresAQuarterOfTheMemoryNoGpuAndHalfOfCustomNames() {
    BatchNodeStatus s = compose(spec(NodeMode.Interactive, null, Map.of(SU2, 16L)));
    assertThat(s.getCapacity()).isEqualTo(Map.of(CPU, 16_000L, MEM, 64 * GIB, GPU, 2L, SU2, 16L));
    assertThat(s.getOffer().getOthers())
        .isEqualTo(Map.of(CPU, 8000L, MEM, 16 * GIB, GPU, 0L, SU2, 8L));
    assertThat(s.getOffer().getOwn())
        .as("ownMode unset means mode")
        .isEqualTo(s.getOffer().getOthers());
  }

  @Test
  void backgroundDroneAndOff() {
    assertThat(compose(spec(NodeMode.Background, null, Map.of(SU2, 16L))).getOffer().getOthers())
        .isEqualTo(Map.of(CPU, 12_000L, MEM, 32 * GIB, GPU, 2L, SU2, 12L));
    BatchNodeStatus drone = compose(spec(NodeMode.Drone, null, Map.of(SU2, 16L)));
    assertThat(drone.getOffer().getOthers()).isEqualTo(drone.getCapacity());
    assertThat(compose(spec(NodeMode.Off, null, Map.of(SU2, 16L))).getOffer().getOthers().values())
        .containsOnly(0L);
  }

  @Test
  void ownWorkIsScaledByOwnModeAndEveryoneElsesByMode() {
    BatchNodeStatus s = compose(spec(NodeMode.Off, NodeMode.Drone, null));
    assertThat(s.getOffer().getOwn()).isEqualTo(s.getCapacity());
    assertThat(s.getOffer().getOthers().values()).containsOnly(0L);

    BatchNodeStatus t = compose(spec(NodeMode.Drone, NodeMode.Interactive, null));
    assertThat(t.getOffer().getOthers()).isEqualTo(t.getCapacity());
    assertThat(t.getOffer().getOwn()).containsEntry(CPU, 8000L).containsEntry(GPU, 0L);
  }

  @Test
  void customNamesFollowTheStarEntryOfAPolicyTable() {
    ModeTable custom =
        ModeTable.defaults().with(Map.of(NodeMode.Background, Map.of(SU2, 25, "*", 60)));
    BatchNodeStatus s =
        new NodeStatusComposer(
                custom, CgroupBounds.NONE, Map.of("example.com/licenses", 5L), Executor.Process)
            .compose(
                HOST,
                spec(NodeMode.Background, null, Map.of(SU2, 16L)),
                Map.of(),
                List.of(),
                null,
                T0);
    assertThat(s.getOffer().getOthers())
        .containsEntry(SU2, 4L) // its own row entry
        .containsEntry("example.com/licenses", 3L) // "*": 60% of 5, rounded down
        .containsEntry(CPU, 9600L);
  }

  @Test
  void aModeChangeChangesTheOfferNotTheCapacityOrAllocation() {
    Map<String, Long> allocated = Map.of(CPU, 10_000L);
    BatchNodeStatus drone =
        composer.compose(HOST, spec(NodeMode.Drone, null, null), allocated, List.of(), null, T0);
    BatchNodeStatus interactive =
        composer.compose(
            HOST,
            spec(NodeMode.Interactive, null, null),
            allocated,
            List.of(),
            drone,
            T0.plusSeconds(10));
    assertThat(interactive.getCapacity()).isEqualTo(drone.getCapacity());
    assertThat(drone.getOffer().getOthers()).containsEntry(CPU, 16_000L);
    assertThat(interactive.getOffer().getOthers()).containsEntry(CPU, 8000L);
    // Running jobs are not disturbed: allocation may now exceed the offer.
    assertThat(interactive.getAllocated()).containsEntry(CPU, 10_000L);
  }

  @Test
  void overridesWinOverSpecResourcesAndMeasurementsAndTheCgroupBoundsOnlyMeasurements() {
    CgroupBounds bounds = new CgroupBounds(OptionalLong.of(4000), OptionalLong.of(8 * GIB));
    BatchNodeStatus s =
        new NodeStatusComposer(ModeTable.defaults(), bounds, Map.of(MEM, 2 * GIB), Executor.Process)
            .compose(
                HOST,
                spec(NodeMode.Drone, null, Map.of(SU2, 16L, GPU, 1L)),
                Map.of(),
                List.of(),
                null,
                T0);
    assertThat(s.getCapacity()).isEqualTo(Map.of(CPU, 4000L, MEM, 2 * GIB, GPU, 1L, SU2, 16L));
    assertThat(s.getUsage()).isEqualTo(Map.of(CPU, 3000L, MEM, 10 * GIB));
  }

  @Test
  void aNegativeOverrideIsAStartUpError() {
    assertThatThrownBy(
            () ->
                new NodeStatusComposer(
                    ModeTable.defaults(), CgroupBounds.NONE, Map.of(SU2, -1L), Executor.Process))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(SU2);
    assertThatThrownBy(
            () ->
                new NodeStatusComposer(
                    ModeTable.defaults(),
                    CgroupBounds.NONE,
                    Map.of(SU2, Long.MAX_VALUE - 1),
                    Executor.Process))
        .hasMessageContaining("must be a whole number from 0 to 9007199254740991");
  }

  @Test
  void noSumOrProductCanStopTheReport() {
    // A capacity near 2^63 (an API server that does not enforce the CRD's maximum) is ignored
    // with a note, and allocation sums saturate: the heartbeat goes on.
    Map<String, Long> resources = new LinkedHashMap<>();
    resources.put(SU2, Long.MAX_VALUE - 1);
    resources.put("example.com/big", 9_007_199_254_740_991L);
    List<BatchJob> jobs = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      jobs.add(job("j" + i, "ws-7", JobPhase.Running, Map.of(SU2, Long.MAX_VALUE / 2)));
    }
    Map<String, Long> allocated = NodeAllocation.of("ws-7", jobs);
    assertThat(allocated).containsEntry(SU2, Long.MAX_VALUE);
    BatchNodeStatus s =
        composer.compose(
            HOST, spec(NodeMode.Drone, null, resources), allocated, List.of(), null, T0);
    assertThat(s.getCapacity()).doesNotContainKey(SU2);
    assertThat(s.getAllocated()).containsEntry(SU2, 9_007_199_254_740_991L);
    assertThat(s.getOffer().getOthers()).containsEntry("example.com/big", 9_007_199_254_740_991L);
    assertThat(
            composer
                .compose(
                    HOST,
                    spec(NodeMode.Interactive, null, resources),
                    allocated,
                    List.of(),
                    null,
                    T0)
                .getOffer()
                .getOthers())
        .containsEntry("example.com/big", 4_503_599_627_370_495L);
    assertThat(Conditions.find(s.getConditions(), ConditionTypes.READY).getMessage())
        .contains(SU2 + " is 9223372036854775806, not a whole number from 0 to 9007199254740991");
  }

  @Test
  void aNodeWhoseExecutorThisAgentDoesNotRunIsNotReadyAndSaysWhy() {
    BatchNodeSpec pod = spec(NodeMode.Drone, null, null);
    pod.setExecutor(Executor.Pod);
    Condition ready = Conditions.find(compose(pod).getConditions(), ConditionTypes.READY);
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo(NodeStatusComposer.REASON_EXECUTOR_NOT_SUPPORTED);
    assertThat(ready.getMessage())
        .isEqualTo(
            "spec.executor is Pod but this agent runs jobs as local processes (--executor"
                + " Process), so nothing is admitted here; set spec.executor to Process or run"
                + " the agent with --executor Pod");
    NodeStatusComposer podAgent =
        new NodeStatusComposer(ModeTable.defaults(), CgroupBounds.NONE, Map.of(), Executor.Pod);
    assertThat(
            Conditions.isTrue(
                podAgent.compose(HOST, pod, Map.of(), List.of(), null, T0).getConditions(),
                ConditionTypes.READY))
        .isTrue();
  }

  @Test
  void aBadSpecEntryIsIgnoredAndNamedAndAMissingModeIsTheCrdDefault() {
    Map<String, Long> resources = new LinkedHashMap<>();
    resources.put(SU2, -4L);
    BatchNodeStatus s = compose(spec(null, null, resources));
    assertThat(s.getCapacity()).doesNotContainKey(SU2);
    // No mode is Drone, as the CRD's default and the controller have it.
    assertThat(s.getOffer().getOthers()).isEqualTo(s.getCapacity());
    assertThat(s.getOffer().getOwn()).isEqualTo(s.getCapacity());
    Condition ready = Conditions.find(s.getConditions(), ConditionTypes.READY);
    assertThat(ready.getStatus()).isEqualTo("True");
    assertThat(ready.getMessage()).contains(SU2 + " is -4");
  }

  @Test
  void allocationSumsRequestsOfJobsAdmittedOrRunningHere() {
    List<BatchJob> jobs =
        List.of(
            job("a", "ws-7", JobPhase.Admitted, Map.of(CPU, 1000L, MEM, GIB)),
            job("b", "ws-7", JobPhase.Running, Map.of(CPU, 2500L, SU2, 4L)),
            job("c", "ws-8", JobPhase.Running, Map.of(CPU, 7000L)),
            job("d", "ws-7", JobPhase.Succeeded, Map.of(CPU, 9000L)),
            job("e", "ws-7", JobPhase.Failed, Map.of(CPU, 9000L)),
            job("f", null, JobPhase.Queued, Map.of(CPU, 9000L)),
            job("g", "ws-7", JobPhase.Running, null));
    assertThat(NodeAllocation.of("ws-7", jobs)).isEqualTo(Map.of(CPU, 3500L, MEM, GIB, SU2, 4L));
    assertThat(NodeAllocation.of("ws-9", jobs)).isEmpty();
  }

  @Test
  void heartbeatReadyAndItsTransitionTime() {
    BatchNodeStatus first = compose(spec(NodeMode.Drone, null, null));
    assertThat(first.getHeartbeatTime()).isEqualTo("2030-05-01T10:00:00Z");
    Condition ready = Conditions.find(first.getConditions(), ConditionTypes.READY);
    assertThat(ready.getStatus()).isEqualTo("True");
    assertThat(ready.getReason()).isEqualTo(NodeStatusComposer.REASON_REPORTING);
    assertThat(ready.getMessage()).isEqualTo("the agent reported at 2030-05-01T10:00:00Z");
    assertThat(ready.getLastTransitionTime()).isEqualTo("2030-05-01T10:00:00Z");

    BatchNodeStatus next =
        composer.compose(
            HOST, spec(NodeMode.Drone, null, null), Map.of(), List.of(), first, T0.plusSeconds(10));
    assertThat(next.getHeartbeatTime()).isEqualTo("2030-05-01T10:00:10Z");
    Condition again = Conditions.find(next.getConditions(), ConditionTypes.READY);
    assertThat(again.getLastTransitionTime())
        .as("still True: no transition")
        .isEqualTo("2030-05-01T10:00:00Z");
    assertThat(again.getMessage()).contains("10:00:10Z");
  }

  @Test
  void jobsAreSortedAndKeepUsageReportedBeforeARestart() {
    NodeJob z = nodeJob("studio", "z", "uid-z", JobPhase.Running, Map.of(CPU, 500L));
    NodeJob a = nodeJob("studio", "a", "uid-a", JobPhase.Succeeded, null);
    BatchNodeStatus previous = new BatchNodeStatus();
    previous.setJobs(
        List.of(
            nodeJob("studio", "a", "uid-a", JobPhase.Running, Map.of(CPU, 900L, MEM, GIB)),
            nodeJob("studio", "z", "uid-z", JobPhase.Running, Map.of(CPU, 100L, MEM, 2 * GIB))));
    BatchNodeStatus s =
        composer.compose(
            HOST, spec(NodeMode.Drone, null, null), Map.of(), List.of(z, a), previous, T0);
    assertThat(s.getJobs()).extracting(NodeJob::getName).containsExactly("a", "z");
    // Finished while no agent measured it: the last reported usage stays.
    assertThat(s.getJobs().get(0).getUsage()).isEqualTo(Map.of(CPU, 900L, MEM, GIB));
    assertThat(s.getJobs().get(0).getPhase()).isEqualTo(JobPhase.Succeeded);
    // Re-adopted: the peak never drops below what was reported before.
    assertThat(s.getJobs().get(1).getUsage()).isEqualTo(Map.of(CPU, 500L, MEM, 2 * GIB));
  }

  private static NodeJob nodeJob(
      String ns, String name, String uid, JobPhase phase, Map<String, Long> usage) {
    NodeJob j = new NodeJob();
    j.setNamespace(ns);
    j.setName(name);
    j.setUid(uid);
    j.setPhase(phase);
    j.setUsage(usage);
    return j;
  }

  private static BatchJob job(
      String name, String node, JobPhase phase, Map<String, Long> requests) {
    ApiFixtures.JobBuilder j =
        ApiFixtures.aJob(name).namespace("studio").uid("uid-" + name).placed(node, phase);
    if (requests != null) {
      requests.forEach(j::request);
    }
    return j.build();
  }
}
