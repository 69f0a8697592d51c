package io.octomy.batch.admission;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where a job may be placed: its own spec.nodeSelector and the nodeSelector of its queue and of
 * every queue above it (Slurm's partitions). A label two of them set to different values selects no
 * node; the job then waits NoNodeFits with a sentence naming both.
 */
final class QueueSelectors {

  /**
   * The labels a job's node must carry, and in whose words.
   *
   * @param selector every pair, sorted by label; null when any node will do
   * @param source who asks for them: "spec.nodeSelector", "queue Q's nodeSelector" or both
   * @param conflict the sentence of a label asked for with two values; null when there is none
   */
  record PlacementLabels(SortedMap<String, String> selector, String source, String conflict) {}

  static final PlacementLabels ANYWHERE = new PlacementLabels(null, "spec.nodeSelector", null);

  /** Per queue number: its chain's labels (own and every parent's); ANYWHERE when none. */
  private final PlacementLabels[] byQueue;

  QueueSelectors(QueueTree tree) {
    byQueue = new PlacementLabels[tree.size()];
    for (int q = 0; q < tree.size(); q++) {
      byQueue[q] = chain(tree, q);
    }
  }

  /** Where a job with this selector may be placed, without queues. */
  static PlacementLabels ofJob(SortedMap<String, String> jobSelector) {
    return jobSelector == null
        ? ANYWHERE
        : new PlacementLabels(jobSelector, "spec.nodeSelector", null);
  }

  /** Where the job in queue {@code queue} (a number, or negative) may be placed. */
  PlacementLabels of(JobReading job, int queue) {
    PlacementLabels fromQueue = queue >= 0 ? byQueue[queue] : ANYWHERE;
    if (fromQueue.selector() == null) {
      return job.ownPlacement;
    }
    SortedMap<String, String> jobSelector = job.nodeSelector;
    if (jobSelector == null || fromQueue.conflict() != null) {
      return fromQueue;
    }
    SortedMap<String, String> both = new TreeMap<>(fromQueue.selector());
    for (Map.Entry<String, String> pair : jobSelector.entrySet()) {
      String queueValue = both.putIfAbsent(pair.getKey(), pair.getValue());
      if (queueValue != null && !queueValue.equals(pair.getValue())) {
        return new PlacementLabels(
            both,
            fromQueue.source(),
            "spec.nodeSelector asks for "
                + pair.getKey()
                + "="
                + pair.getValue()
                + ", and "
                + fromQueue.source()
                + " for "
                + pair.getKey()
                + "="
                + queueValue
                + "; drop that label from the job, or submit it where another queue holds it");
      }
    }
    return new PlacementLabels(both, "spec.nodeSelector and " + fromQueue.source(), null);
  }

  private static PlacementLabels chain(QueueTree tree, int queue) {
    if (tree.cycle(queue) != null) {
      return ANYWHERE; // its jobs wait QueueCycle before capacity is looked at
    }
    SortedMap<String, String> labels = new TreeMap<>();
    Map<String, String> setBy = new TreeMap<>();
    for (int q = queue; q >= 0; q = tree.parent(q)) {
      QueueView view = tree.view(q);
      if (view == null) {
        continue;
      }
      for (Map.Entry<String, String> pair : new TreeMap<>(view.nodeSelector()).entrySet()) {
        String below = labels.putIfAbsent(pair.getKey(), pair.getValue());
        setBy.putIfAbsent(pair.getKey(), tree.name(q));
        if (below != null && !below.equals(pair.getValue())) {
          return new PlacementLabels(
              labels,
              source(tree, queue, setBy),
              "queue "
                  + tree.name(q)
                  + " keeps its jobs to "
                  + pair.getKey()
                  + "="
                  + pair.getValue()
                  + " where queue "
                  + setBy.get(pair.getKey())
                  + " below it asks for "
                  + pair.getKey()
                  + "="
                  + below
                  + "; make the two nodeSelectors agree");
        }
      }
    }
    return labels.isEmpty()
        ? ANYWHERE
        : new PlacementLabels(labels, source(tree, queue, setBy), null);
  }

  private static String source(QueueTree tree, int queue, Map<String, String> setBy) {
    boolean ownOnly = setBy.values().stream().allMatch(tree.name(queue)::equals);
    return ownOnly
        ? "queue " + tree.name(queue) + "'s nodeSelector"
        : "the nodeSelectors of queue " + tree.name(queue) + " and the queues above it";
  }
}
