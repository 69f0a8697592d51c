package io.octomy.batch.agent;

import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.NodeOffers;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pure: one reading of the machine plus what the agent knows of its jobs, turned into the whole
 * {@code BatchNode.status} the agent writes. No Kubernetes client, no clock of its own, so every
 * report can be checked in a unit test.
 */
public final class NodeStatusComposer {

  /** Reason of the Ready condition while the agent reports. */
  public static final String REASON_REPORTING = "AgentReporting";

  /**
   * Reason of a Ready=False condition: the node's spec.executor is not what this agent runs, so
   * nothing may be admitted here (admission passes over a node that is not Ready).
   */
  public static final String REASON_EXECUTOR_NOT_SUPPORTED = "ExecutorNotSupported";

  /** Reason of Ready=False written by an agent that stops cleanly. */
  public static final String REASON_STOPPED = "AgentStopped";

  private final ModeTable modes;
  private final CgroupBounds bounds;
  private final Map<String, Long> overrides;
  private final Executor executor;

  /**
   * @param modes the mode table offers are scaled by
   * @param bounds cgroup bounds of the agent ({@link CgroupBounds#NONE} outside a container)
   * @param overrides {@code --capacity} values
   * @param executor how this agent runs jobs ({@code --executor})
   * @throws IllegalArgumentException if an override is negative or above {@link Quantities#MAX} (a
   *     start-up error, not a report's)
   */
  public NodeStatusComposer(
      ModeTable modes, CgroupBounds bounds, Map<String, Long> overrides, Executor executor) {
    this.modes = modes;
    this.bounds = bounds;
    this.overrides = overrides == null ? Map.of() : Map.copyOf(overrides);
    this.executor = executor;
    NodeCapacity.of(new HostReadings(0, 0, 0, 0, 0), CgroupBounds.NONE, null, this.overrides);
  }

  /**
   * @param readings the host probe's reading
   * @param spec the BatchNode's spec as people wrote it (may be null or partial)
   * @param allocated sum of the requests admitted here ({@link NodeAllocation#of})
   * @param jobs this agent's per-job entries
   * @param previous the status as last written, for condition transition times and to carry job
   *     usage over a restart; may be null
   * @param now the time of this report (the heartbeat)
   */
  public BatchNodeStatus compose(
      HostReadings readings,
      BatchNodeSpec spec,
      Map<String, Long> allocated,
      List<NodeJob> jobs,
      BatchNodeStatus previous,
      Instant now) {
    BatchNodeSpec s = spec == null ? new BatchNodeSpec() : spec;
    List<String> notes = new ArrayList<>();
    Map<String, Long> capacity =
        NodeCapacity.of(readings, bounds, usable(s.getResources(), notes), overrides);
    // The same reading of the spec as the controller's, defaults included.
    NodeOffer offer =
        NodeOffer.of(modes, capacity, BatchNodeSpec.modeOf(s), BatchNodeSpec.ownModeOf(s));

    BatchNodeStatus status = new BatchNodeStatus();
    status.setCapacity(capacity);
    status.setOffer(
        new NodeOffers(new LinkedHashMap<>(offer.own()), new LinkedHashMap<>(offer.others())));
    status.setAllocated(allocated == null ? Map.of() : new TreeMap<>(bounded(allocated)));
    status.setUsage(bounded(readings.usage()));
    List<NodeJob> sorted = new ArrayList<>(jobs == null ? List.of() : jobs);
    sorted.sort(NodeJobs.ORDER);
    status.setJobs(NodeJobs.carryOver(previous == null ? null : previous.getJobs(), sorted));
    status.getJobs().forEach(j -> j.setUsage(bounded(j.getUsage())));
    status.setHeartbeatTime(Times.format(now));
    StringBuilder message = new StringBuilder("the agent reported at ").append(Times.format(now));
    notes.forEach(n -> message.append("; ").append(n));
    Executor wanted = BatchNodeSpec.executorOf(s);
    boolean runs = wanted == executor;
    status.setConditions(
        Conditions.set(
            previous == null ? null : previous.getConditions(),
            ConditionTypes.READY,
            runs,
            runs ? REASON_REPORTING : REASON_EXECUTOR_NOT_SUPPORTED,
            runs ? message.toString() : executorMismatch(wanted),
            null,
            now));
    return status;
  }

  /**
   * {@code last} as an agent that stops cleanly leaves it: Ready=False, so that nothing is admitted
   * to a machine whose agent will not start it, rather than until its heartbeat is found stale.
   */
  static BatchNodeStatus stopped(BatchNodeStatus last, Instant now) {
    last.setConditions(
        Conditions.set(
            last.getConditions(),
            ConditionTypes.READY,
            false,
            REASON_STOPPED,
            "the agent stopped at "
                + Times.format(now)
                + "; nothing new is admitted here until it reports again, and jobs already"
                + " running here keep running and are picked up when it starts",
            null,
            now));
    return last;
  }

  private String executorMismatch(Executor wanted) {
    return "spec.executor is "
        + wanted
        + " but this agent runs jobs "
        + (executor == Executor.Process ? "as local processes" : "as Pods")
        + " (--executor "
        + executor
        + "), so nothing is admitted here; set spec.executor to "
        + executor
        + " or run the agent with --executor "
        + wanted;
  }

  /**
   * Values above the largest quantity are reported as that quantity: the CRD refuses larger ones,
   * and a refused report would stop the heartbeat.
   */
  private static Map<String, Long> bounded(Map<String, Long> usage) {
    if (usage == null) {
      return null;
    }
    Map<String, Long> out = new LinkedHashMap<>();
    usage.forEach((k, v) -> out.put(k, v == null ? null : Math.min(Quantities.MAX, v)));
    return out;
  }

  /**
   * The entries of {@code spec.resources} that are whole numbers >= 0. The CRD schema should stop
   * others, but not every API server enforces it, and one bad entry must not stop the node from
   * reporting at all.
   */
  private static Map<String, Long> usable(Map<String, Long> resources, List<String> notes) {
    if (resources == null) {
      return null;
    }
    Map<String, Long> ok = new LinkedHashMap<>();
    resources.forEach(
        (name, qty) -> {
          if (qty == null || !Quantities.inRange(qty)) {
            notes.add(
                "spec.resources "
                    + name
                    + " is "
                    + qty
                    + ", not a whole number from 0 to "
                    + Quantities.MAX
                    + ", and is ignored");
          } else {
            ok.put(name, qty);
          }
        });
    return ok;
  }
}
