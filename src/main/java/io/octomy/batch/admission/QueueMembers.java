package io.octomy.batch.admission;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** Which namespaces' jobs a BatchQueue holds, its subtree's included: for listing one queue. */
public final class QueueMembers {

  private QueueMembers() {}

  /**
   * The namespaces whose jobs are in queue {@code name} or in a queue below it, by name; empty when
   * no queue has that name. A namespace two queues claim belongs to none of them.
   */
  public static Optional<Set<String>> namespacesUnder(List<QueueView> queues, String name) {
    QueueTree tree = new QueueTree(queues);
    int target = tree.indexOf(name);
    if (target < 0) {
      return Optional.empty();
    }
    Set<String> namespaces = new TreeSet<>();
    for (String namespace : tree.claimedNamespaces()) {
      int q = tree.queueOf(namespace);
      for (int steps = 0; q >= 0 && steps < tree.size(); q = tree.parent(q), steps++) {
        if (q == target) {
          namespaces.add(namespace);
          break;
        }
      }
    }
    return Optional.of(namespaces);
  }
}
