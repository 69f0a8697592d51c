package io.octomy.batch.agent;

import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.NodeOffers;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
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

  private final ModeTable modes;
  private final CgroupBounds bounds;
  private final Map<String, Long> overrides;

  /**
   * @param modes the mode table offers are scaled by
   * @param bounds cgroup bounds of the agent ({@link CgroupBounds#NONE} outside a container)
   * @param overrides {@code --capacity} values
   * @throws IllegalArgumentException if an override is negative (a start-up error, not a report's)
   */
  public NodeStatusComposer(ModeTable modes, CgroupBounds bounds, Map<String, Long> overrides) {
    this.modes = modes;
    this.bounds = bounds;
    this.overrides = overrides == null ? Map.of() : Map.copyOf(overrides);
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
    NodeMode mode = s.getMode();
    if (mode == null) {
      // Offering nothing is the safe reading of a node nobody configured.
      notes.add("spec.mode is not set, so the node offers nothing (as Off) until it is");
      mode = NodeMode.Off;
    }
    NodeOffer offer = NodeOffer.of(modes, capacity, mode, s.getOwnMode());

    BatchNodeStatus status = new BatchNodeStatus();
    status.setCapacity(capacity);
    status.setOffer(
        new NodeOffers(new LinkedHashMap<>(offer.own()), new LinkedHashMap<>(offer.others())));
    status.setAllocated(allocated == null ? Map.of() : new TreeMap<>(allocated));
    status.setUsage(readings.usage());
    List<NodeJob> sorted = new ArrayList<>(jobs == null ? List.of() : jobs);
    sorted.sort(NodeJobs.ORDER);
    status.setJobs(NodeJobs.carryOver(previous == null ? null : previous.getJobs(), sorted));
    status.setHeartbeatTime(Times.format(now));
    StringBuilder message = new StringBuilder("the agent reported at ").append(Times.format(now));
    notes.forEach(n -> message.append("; ").append(n));
    status.setConditions(
        Conditions.set(
            previous == null ? null : previous.getConditions(),
            ConditionTypes.READY,
            true,
            REASON_REPORTING,
            message.toString(),
            null,
            now));
    return status;
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
          if (qty == null || qty < 0) {
            notes.add(
                "spec.resources "
                    + name
                    + " is "
                    + qty
                    + ", not a whole number >= 0, and is ignored");
          } else {
            ok.put(name, qty);
          }
        });
    return ok;
  }
}
