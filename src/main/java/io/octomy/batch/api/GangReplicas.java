package io.octomy.batch.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure: where an admitted job's replicas run and what each is told. A gang ({@code spec.replicas}
 * above 1) has one node per replica in {@code status.replicaNodes}; any other job runs its one
 * replica on {@code status.node}. Both the agent (Process nodes) and the controller (Pod nodes) set
 * the same three variables, also for a job of one replica, so a script needs no special case.
 */
public final class GangReplicas {

  /** The replica's index, from 0. */
  public static final String INDEX_VARIABLE = "OCTOMY_REPLICA_INDEX";

  /** How many replicas run together. */
  public static final String COUNT_VARIABLE = "OCTOMY_REPLICA_COUNT";

  /** Every replica's node name in index order, comma-separated. */
  public static final String NODES_VARIABLE = "OCTOMY_REPLICA_NODES";

  private GangReplicas() {}

  /**
   * The node of each replica in index order: {@code status.replicaNodes} when written, else the one
   * {@code status.node}; empty when the job is not placed.
   */
  public static List<String> nodes(BatchJob job) {
    BatchJobStatus s = job.getStatus();
    if (s == null) {
      return List.of();
    }
    if (s.getReplicaNodes() != null && !s.getReplicaNodes().isEmpty()) {
      return List.copyOf(s.getReplicaNodes());
    }
    return s.getNode() == null ? List.of() : List.of(s.getNode());
  }

  /** True when the job's replicas are placed one by one ({@code status.replicaNodes}). */
  public static boolean isGang(BatchJob job) {
    return nodes(job).size() > 1;
  }

  /** The indices of the replicas placed on {@code node}, ascending. */
  public static List<Integer> on(BatchJob job, String node) {
    List<String> nodes = nodes(job);
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).equals(node)) {
        out.add(i);
      }
    }
    return out;
  }

  /** The variables replica {@code index} of the job starts with, in this order. */
  public static Map<String, String> variables(BatchJob job, int index) {
    List<String> nodes = nodes(job);
    Map<String, String> env = new LinkedHashMap<>();
    env.put(INDEX_VARIABLE, Integer.toString(index));
    env.put(COUNT_VARIABLE, Integer.toString(Math.max(1, nodes.size())));
    env.put(NODES_VARIABLE, String.join(",", nodes));
    return env;
  }
}
