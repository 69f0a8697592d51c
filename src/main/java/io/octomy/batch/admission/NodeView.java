package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.NodeMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the admission pass needs to know about one BatchNode.
 *
 * @param name the node's name
 * @param mode the mode that scales the offer for other nodes' work
 * @param ownMode the mode for jobs whose {@code origin} is this node; null means the same as {@code
 *     mode}
 * @param capacity resource name to capacity, as the agent reports it (negative values count as 0)
 * @param heartbeat the agent's last heartbeat; null means never, so the node is not ready
 * @param ready the Ready condition the agent reports
 * @param usage resource name to what the agent measures in use on the whole machine, our jobs and
 *     everything else together; a node is busy for BestEffort work when it uses at least as much of
 *     a resource as it offers
 * @param strayRuns runs the node's agent reports still running whose jobs are gone (deleted past
 *     their finalizer, or re-created under a new uid), as "namespace/name"; while there is one, the
 *     node counts as fully allocated, since what they were admitted with is no longer known: like a
 *     Slurm node in COMPLETING, it takes no work that requests anything until its agent reports
 *     them ended
 * @param labels the BatchNode's {@code metadata.labels}, which a job's {@code spec.nodeSelector} is
 *     matched against
 */
public record NodeView(
    String name,
    NodeMode mode,
    NodeMode ownMode,
    Map<String, Long> capacity,
    Instant heartbeat,
    boolean ready,
    Map<String, Long> usage,
    List<String> strayRuns,
    Map<String, String> labels) {

  public NodeView {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(mode, "mode");
    ownMode = ownMode == null ? mode : ownMode;
    capacity = capacity == null ? Map.of() : Map.copyOf(capacity);
    usage = usage == null ? Map.of() : Map.copyOf(usage);
    strayRuns = strayRuns == null ? List.of() : List.copyOf(strayRuns);
    labels = labels == null ? Map.of() : Map.copyOf(labels);
  }

  /** A node without labels. */
  public NodeView(
      String name,
      NodeMode mode,
      NodeMode ownMode,
      Map<String, Long> capacity,
      Instant heartbeat,
      boolean ready,
      Map<String, Long> usage,
      List<String> strayRuns) {
    this(name, mode, ownMode, capacity, heartbeat, ready, usage, strayRuns, Map.of());
  }

  /** A node whose agent reports no run of a job that is gone. */
  public NodeView(
      String name,
      NodeMode mode,
      NodeMode ownMode,
      Map<String, Long> capacity,
      Instant heartbeat,
      boolean ready,
      Map<String, Long> usage) {
    this(name, mode, ownMode, capacity, heartbeat, ready, usage, List.of(), Map.of());
  }

  /** A node whose measured use is not known (or not given). */
  public NodeView(
      String name,
      NodeMode mode,
      NodeMode ownMode,
      Map<String, Long> capacity,
      Instant heartbeat,
      boolean ready) {
    this(name, mode, ownMode, capacity, heartbeat, ready, Map.of(), List.of(), Map.of());
  }

  /**
   * Whether a heartbeat is recent enough for its node to count as ready: strictly newer than {@code
   * now - timeout}; never (null) is not. The one definition admission and the controller's marking
   * of silent nodes share.
   */
  public static boolean heartbeatFresh(Instant heartbeat, Instant now, Duration timeout) {
    return heartbeat != null && heartbeat.isAfter(now.minus(timeout));
  }
}
