package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Namespace;
import io.octomy.batch.admission.QueueView;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueSpec;
import io.octomy.batch.api.QueueNamespaceSelector;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The BatchQueues of the cache as the admission pass reads them, each with the namespaces it holds:
 * those it lists, and those whose labels its namespaceSelector matches. An empty matchLabels
 * selects every namespace, as an empty label selector does in Kubernetes.
 */
final class QueueViews {

  private QueueViews() {}

  static List<QueueView> of(Collection<BatchQueue> queues, Collection<Namespace> namespaces) {
    return of(queues, namespaces, Map.of());
  }

  /** The same, each with its past usage as {@link QueueUsageMeter} keeps it (by queue name). */
  static List<QueueView> of(
      Collection<BatchQueue> queues,
      Collection<Namespace> namespaces,
      Map<String, Map<String, Long>> pastUsage) {
    List<QueueView> views = new ArrayList<>(queues.size());
    for (BatchQueue queue : queues) {
      BatchQueueSpec spec = queue.getSpec() == null ? new BatchQueueSpec() : queue.getSpec();
      TreeSet<String> held = new TreeSet<>();
      if (spec.getNamespaces() != null) {
        held.addAll(spec.getNamespaces());
      }
      QueueNamespaceSelector selector = spec.getNamespaceSelector();
      if (selector != null) {
        Map<String, String> wanted =
            selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
        for (Namespace ns : namespaces) {
          Map<String, String> labels = ns.getMetadata().getLabels();
          Map<String, String> have = labels == null ? Map.of() : labels;
          if (have.entrySet().containsAll(wanted.entrySet())) {
            held.add(ns.getMetadata().getName());
          }
        }
      }
      views.add(
          new QueueView(
              queue.getMetadata().getName(),
              spec.getParent(),
              BatchQueueSpec.weightOf(spec),
              spec.getMin(),
              spec.getMax(),
              List.copyOf(held),
              pastUsage.getOrDefault(queue.getMetadata().getName(), Map.of()),
              spec.getNodeSelector()));
    }
    return views;
  }
}
