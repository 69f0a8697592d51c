package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A forecast's world with the items the controller has not created yet ({@link ArrayShape}), so
 * that their runs are simulated like any job's, and each array job ends when its last item does.
 *
 * <p>The controller creates an item while fewer than {@code maxRunning} items are unfinished, so
 * the items still to come are added in index order: as many as there are free places now, created
 * at the next pass (they back off until {@link ArrayShape#createdFrom}, so the next pass itself,
 * which {@code why} answers from, is the controller's), then each after one unfinished item, in
 * index order (the first to come after the first unfinished item, and so on down the line, added
 * ones included). With the items of one array alike, those admitted first end first, which makes
 * this the order places free up in. An array whose items are no longer created (held, or being
 * deleted) never ends in a forecast, and neither do the jobs after it.
 */
public final class UncreatedItems {

  /**
   * The world with the items to come.
   *
   * @param world the snapshot with them added
   * @param itemsOf each array job that has not ended, to the keys of all its items
   * @param added the keys of the items added (not objects: no answer lists them)
   */
  record Expanded(Snapshot world, Map<JobKey, List<JobKey>> itemsOf, Set<JobKey> added) {}

  private UncreatedItems() {}

  /** The world with every array's items to come added as Queued jobs. */
  public static Snapshot completed(Snapshot snapshot) {
    return expand(snapshot).world();
  }

  static Expanded expand(Snapshot snapshot) {
    if (snapshot.arrays().isEmpty()) {
      return new Expanded(snapshot, Map.of(), Set.of());
    }
    Map<JobKey, JobView> byKey = new HashMap<>();
    for (JobView job : snapshot.jobs()) {
      byKey.put(job.key(), job);
    }
    List<JobView> jobs = new ArrayList<>(snapshot.jobs());
    Map<JobKey, List<JobKey>> itemsOf = new HashMap<>();
    Set<JobKey> added = new HashSet<>();
    Instant now = snapshot.now();
    for (ArrayShape array : snapshot.arrays()) {
      JobView parent = byKey.get(array.key());
      if (parent == null || !parent.phase().holdsReservation()) {
        continue;
      }
      List<JobKey> items = new ArrayList<>(array.count());
      List<String> line = new ArrayList<>(); // unfinished items, in the order places free up
      List<Integer> missing = new ArrayList<>();
      for (int i = 0; i < array.count(); i++) {
        JobKey key = array.itemKey(i);
        items.add(key);
        JobView item = byKey.get(key);
        if (item == null) {
          missing.add(i);
        } else if (!item.phase().isFinal()) {
          line.add(key.name());
        }
      }
      itemsOf.put(array.key(), items);
      if (missing.isEmpty() || !array.createsItems() || array.item() == null) {
        continue;
      }
      int free = Math.max(0, array.maxRunning() - line.size());
      for (int j = 0; j < missing.size(); j++) {
        String name = ArrayShape.itemName(array.name(), missing.get(j));
        JobView item =
            j < free
                ? ahead(array.item(), name, now, null)
                    .withNotBefore(array.createdFrom().isAfter(now) ? array.createdFrom() : null)
                : ahead(array.item(), name, now, line.get(j - free));
        line.add(name);
        jobs.add(item);
        added.add(item.key());
      }
    }
    return new Expanded(snapshot.withJobs(jobs, now), itemsOf, added);
  }

  /** An item to come: the template under its name, queued now, after {@code place} when given. */
  private static JobView ahead(JobView template, String name, Instant now, String place) {
    List<String> after = template.after();
    if (place != null) {
      after = new ArrayList<>(after);
      after.add(place);
    }
    return new JobView(
        template.namespace(),
        name,
        template.generation(),
        template.requests(),
        template.limits(),
        after,
        template.locks(),
        template.group(),
        template.origin(),
        JobPhase.Queued,
        null,
        now,
        template.specProblems(),
        false,
        template.nodeSelector(),
        null,
        template.replicas(),
        List.of());
  }
}
