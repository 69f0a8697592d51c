package io.octomy.batch.admission;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the admission pass needs to know about one BatchQueue.
 *
 * @param name the queue's name
 * @param parent the name of its parent queue; null for a queue at the top of the tree
 * @param weight its share among sibling queues with work; values below 1 count as 1
 * @param min resource name to what it gets back first, as running jobs end ({@link
 *     QueueMinimumHolds})
 * @param max resource name to the most its jobs (and its children's) may hold together
 * @param namespaces the namespaces it holds: those it lists and those its selector matches
 * @param pastUsage resource name to what its subtree ran: request x seconds, each second weighed by
 *     how long ago it was (halved every {@code usageHalfLife}), up to the snapshot's now
 * @param nodeSelector labels a node must carry for its jobs (and its children's) to be placed
 *     there, added to each job's own nodeSelector; empty for every node
 */
public record QueueView(
    String name,
    String parent,
    long weight,
    Map<String, Long> min,
    Map<String, Long> max,
    List<String> namespaces,
    Map<String, Long> pastUsage,
    Map<String, String> nodeSelector) {

  public QueueView {
    Objects.requireNonNull(name, "name");
    weight = Math.max(1, weight);
    min = min == null ? Map.of() : Map.copyOf(min);
    max = max == null ? Map.of() : Map.copyOf(max);
    namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
    pastUsage = pastUsage == null ? Map.of() : Map.copyOf(pastUsage);
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
  }

  /** A queue whose jobs may run on any node. */
  public QueueView(
      String name,
      String parent,
      long weight,
      Map<String, Long> min,
      Map<String, Long> max,
      List<String> namespaces,
      Map<String, Long> pastUsage) {
    this(name, parent, weight, min, max, namespaces, pastUsage, Map.of());
  }

  /** A queue with no past usage. */
  public QueueView(
      String name,
      String parent,
      long weight,
      Map<String, Long> min,
      Map<String, Long> max,
      List<String> namespaces) {
    this(name, parent, weight, min, max, namespaces, Map.of(), Map.of());
  }
}
