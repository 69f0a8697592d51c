package io.octomy.batch.agent;

import io.octomy.batch.api.Executor;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How one {@link NodeAgent} runs.
 *
 * @param nodeName name of this machine's BatchNode
 * @param executor how this machine runs jobs; also the executor of a BatchNode the agent creates
 * @param initialMode mode (and own mode) of a BatchNode the agent creates; an existing node's spec
 *     is never rewritten
 * @param capacityOverrides {@code --capacity NAME=QTY} values, winning over measured capacity and
 *     {@code spec.resources}
 * @param stateDir where the Process executor keeps job state and logs
 * @param reportInterval steady interval of status writes (the heartbeat)
 * @param sampleInterval how often running jobs are measured and the job list is reconciled
 * @param modeTable percent of capacity offered per mode
 */
public record AgentSettings(
    String nodeName,
    Executor executor,
    NodeMode initialMode,
    Map<String, Long> capacityOverrides,
    Path stateDir,
    Duration reportInterval,
    Duration sampleInterval,
    ModeTable modeTable) {

  /** State directory of the {@code agent} command when none is given. */
  public static final Path DEFAULT_STATE_DIR = Path.of(".octomy-agent");

  /** Heartbeat interval; well inside the default 60 s node heartbeat timeout. */
  public static final Duration DEFAULT_REPORT_INTERVAL = Duration.ofSeconds(10);

  /** Sampling every second or so catches short peaks without measurable overhead. */
  public static final Duration DEFAULT_SAMPLE_INTERVAL = Duration.ofSeconds(1);

  public AgentSettings {
    if (nodeName == null || nodeName.isBlank()) {
      throw new IllegalArgumentException("the agent needs a node name (--node NAME)");
    }
    executor = executor == null ? Executor.Process : executor;
    initialMode = initialMode == null ? NodeMode.Drone : initialMode;
    capacityOverrides =
        capacityOverrides == null
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(capacityOverrides));
    stateDir = stateDir == null ? DEFAULT_STATE_DIR : stateDir;
    reportInterval = positive(reportInterval, DEFAULT_REPORT_INTERVAL, "report interval");
    sampleInterval = positive(sampleInterval, DEFAULT_SAMPLE_INTERVAL, "sample interval");
    modeTable = modeTable == null ? ModeTable.defaults() : modeTable;
  }

  /**
   * Defaults for everything but the node name: Process executor, Drone, default intervals and mode
   * table.
   */
  public static AgentSettings defaults(String nodeName) {
    return new AgentSettings(nodeName, null, null, null, null, null, null, null);
  }

  public AgentSettings withExecutor(Executor value) {
    return new AgentSettings(
        nodeName,
        value,
        initialMode,
        capacityOverrides,
        stateDir,
        reportInterval,
        sampleInterval,
        modeTable);
  }

  public AgentSettings withInitialMode(NodeMode value) {
    return new AgentSettings(
        nodeName,
        executor,
        value,
        capacityOverrides,
        stateDir,
        reportInterval,
        sampleInterval,
        modeTable);
  }

  public AgentSettings withCapacityOverrides(Map<String, Long> value) {
    return new AgentSettings(
        nodeName,
        executor,
        initialMode,
        value,
        stateDir,
        reportInterval,
        sampleInterval,
        modeTable);
  }

  public AgentSettings withStateDir(Path value) {
    return new AgentSettings(
        nodeName,
        executor,
        initialMode,
        capacityOverrides,
        value,
        reportInterval,
        sampleInterval,
        modeTable);
  }

  public AgentSettings withReportInterval(Duration value) {
    return new AgentSettings(
        nodeName,
        executor,
        initialMode,
        capacityOverrides,
        stateDir,
        value,
        sampleInterval,
        modeTable);
  }

  public AgentSettings withSampleInterval(Duration value) {
    return new AgentSettings(
        nodeName,
        executor,
        initialMode,
        capacityOverrides,
        stateDir,
        reportInterval,
        value,
        modeTable);
  }

  public AgentSettings withModeTable(ModeTable value) {
    return new AgentSettings(
        nodeName,
        executor,
        initialMode,
        capacityOverrides,
        stateDir,
        reportInterval,
        sampleInterval,
        value);
  }

  private static Duration positive(Duration value, Duration fallback, String what) {
    if (value == null) {
      return fallback;
    }
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("the " + what + " must be positive, got " + value);
    }
    return value;
  }
}
