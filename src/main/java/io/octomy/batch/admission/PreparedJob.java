package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ServiceClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A job turned into the arrays the pass works on: positive requests as (resource id, quantity)
 * pairs sorted by id, distinct sorted lock keys, and (for Queued jobs) priority and starving.
 */
final class PreparedJob {

  final int index;
  final JobView view;
  final JobKey key;

  /** Resource ids of the positive requests, ascending; a request of 0 constrains nothing. */
  final int[] resourceIds;

  /** The quantities matching {@link #resourceIds}. */
  final long[] quantities;

  /** The requests as a value, for the node pool's per-pass memo. */
  final RequestShape shape;

  /** Distinct lock keys, sorted. */
  final List<String> lockKeys;

  /** Problems that make a Queued job InvalidSpec: the given ones plus negative quantities. */
  final List<String> problems;

  final Instant queuedAt;

  /** The service class, worked out once from the requests and limits; for Queued jobs only. */
  ServiceClass serviceClass;

  long effectivePriority;
  boolean starving;

  /**
   * A BestEffort job that is not starving: deferred first when the machine is busy. Set with the
   * priority, for Queued jobs.
   */
  boolean deferrable;

  /**
   * Set by the forecast when it has shown that no node has room for the job now (none of the nodes
   * freed since it last found none); its next placement answers "nowhere" without a search.
   */
  boolean knownUnplaceable;

  /** Index of the origin node in the node pool, or -1. */
  int origin = -1;

  /**
   * Position in {@link #resourceIds} of the resource the placement best-fits on; -1 until the node
   * pool works it out.
   */
  int dominant = -1;

  PreparedJob(int index, JobView view, ResourceIndex names, Instant now) {
    this.index = index;
    this.view = view;
    this.key = view.key();
    this.queuedAt = view.queuedAt() == null ? now : view.queuedAt();
    List<String> found = view.specProblems();
    int[] ids = new int[view.requests().size()];
    long[] amounts = new long[ids.length];
    int positive = 0;
    // A Queued job with a quantity out of range is rejected; a holder's (admitted elsewhere, or by
    // a server that enforces nothing) still counts in full, saturating.
    for (Map.Entry<String, Long> e : view.requests().entrySet()) {
      long quantity = e.getValue();
      if (!Quantities.inRange(quantity)) {
        found = withProblem(found, outOfRange("Request", e));
      }
      if (quantity > 0) {
        // Insertion by id: a job asks for a handful of resources.
        int id = names.id(e.getKey());
        int at = positive++;
        for (; at > 0 && ids[at - 1] > id; at--) {
          ids[at] = ids[at - 1];
          amounts[at] = amounts[at - 1];
        }
        ids[at] = id;
        amounts[at] = quantity;
      }
    }
    for (Map.Entry<String, Long> e : view.limits().entrySet()) {
      if (!Quantities.inRange(e.getValue())) {
        found = withProblem(found, outOfRange("Limit", e));
      }
    }
    this.problems = List.copyOf(found);
    this.resourceIds = positive == ids.length ? ids : Arrays.copyOf(ids, positive);
    this.quantities = positive == amounts.length ? amounts : Arrays.copyOf(amounts, positive);
    this.shape = new RequestShape(resourceIds, quantities);
    this.lockKeys =
        view.locks().size() <= 1 ? view.locks() : List.copyOf(new TreeSet<>(view.locks()));
  }

  private static List<String> withProblem(List<String> problems, String problem) {
    List<String> more = new ArrayList<>(problems);
    more.add(problem);
    return more;
  }

  private static String outOfRange(String what, Map.Entry<String, Long> e) {
    return what
        + " "
        + e.getKey()
        + " is "
        + e.getValue()
        + "; quantities are whole numbers from 0 to "
        + Quantities.MAX
        + ".";
  }

  boolean requestsNothing() {
    return resourceIds.length == 0;
  }

  /** The quantity this job requests of resource {@code id}; 0 when none. */
  long quantity(int id) {
    int i = Arrays.binarySearch(resourceIds, id);
    return i >= 0 ? quantities[i] : 0;
  }

  /** True when this job requests any of the given resource ids (both ascending). */
  boolean requestsAnyOf(int[] sortedIds) {
    int i = 0;
    int j = 0;
    while (i < resourceIds.length && j < sortedIds.length) {
      if (resourceIds[i] == sortedIds[j]) {
        return true;
      } else if (resourceIds[i] < sortedIds[j]) {
        i++;
      } else {
        j++;
      }
    }
    return false;
  }

  String group() {
    String g = view.group();
    return g == null || g.isBlank() ? null : g;
  }
}
