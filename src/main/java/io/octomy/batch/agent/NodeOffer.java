package io.octomy.batch.agent;

import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a node offers to batch work, for {@code BatchNode.status.offer}: its capacity scaled by the
 * mode table, once for its own work ({@code spec.origin} is this node, scaled by {@code ownMode})
 * and once for other nodes' work (scaled by {@code mode}). Never above capacity.
 *
 * @param own offer for jobs whose origin is this node
 * @param others offer for every other job
 */
public record NodeOffer(Map<String, Long> own, Map<String, Long> others) {

  public NodeOffer {
    // Insertion order kept so the status lists names the way capacity does.
    own = Collections.unmodifiableMap(new LinkedHashMap<>(own));
    others = Collections.unmodifiableMap(new LinkedHashMap<>(others));
  }

  /**
   * @param table the policy's mode table
   * @param capacity the node's capacity
   * @param mode {@code spec.mode}, for other nodes' work
   * @param ownMode {@code spec.ownMode}; null means the same as {@code mode}
   */
  public static NodeOffer of(
      ModeTable table, Map<String, Long> capacity, NodeMode mode, NodeMode ownMode) {
    NodeMode own = ownMode == null ? mode : ownMode;
    return new NodeOffer(table.offer(own, capacity), table.offer(mode, capacity));
  }
}
