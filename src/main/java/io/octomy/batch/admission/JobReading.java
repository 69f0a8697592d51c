package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ServiceClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the pass reads of one {@link JobView} alone: positive requests as (resource id, quantity)
 * pairs sorted by id, distinct sorted lock keys, the keys of its dependencies, the validation
 * problems and the service class. Nothing here depends on the clock, the nodes or the other jobs,
 * only on the view, on the resource ids of the {@link ResourceIndex} and on the numbers of the
 * {@link ScopeNumbers} it was read with, so a {@link PassMemory} hands it to the next pass for as
 * long as the view, the index and the numbers stay the same objects.
 */
final class JobReading {

  final JobView view;
  final JobKey key;

  /*
   * What a pass reads of the view at every pass, copied here: a pass over a kept reading then reads
   * this object and not the view as well (one cache miss less per job, at ten thousand jobs).
   */

  final JobPhase phase;

  /** As the view has it: null when the view has none. */
  final Instant queuedAt;

  final String node;
  final String origin;

  /** {@code key.hashCode()}, for the pass's {@link KeyIndex}. */
  final int keyHash;

  /** The keys of the distinct {@code after} names, in their first order; their hashes alongside. */
  final JobKey[] afterKeys;

  final int[] afterHashes;

  /** Resource ids of the positive requests, ascending; a request of 0 constrains nothing. */
  final int[] resourceIds;

  /** The quantities matching {@link #resourceIds}. */
  final long[] quantities;

  /** The requests as a value, for the node pool's per-pass memo. */
  final RequestShape shape;

  /** How many copies of the requests run together: 1, or a gang's replicas. */
  final int replicas;

  /**
   * What the whole job takes, matching {@link #resourceIds}: {@link #quantities} times {@link
   * #replicas} (saturating), the same array for a single job. Budgets and queues count this.
   */
  final long[] totals;

  /** An Admitted or Running gang's node per replica, as the view has it; empty for a single job. */
  final List<String> replicaNodes;

  /** Distinct lock keys, sorted. */
  final List<String> lockKeys;

  /** Problems that make a Queued job InvalidSpec: the given ones plus out-of-range quantities. */
  final List<String> problems;

  final ServiceClass serviceClass;

  /**
   * The "need ..." of the capacity messages, written at the first one: the requests in words, with
   * the names of the index this was read with. A race writes the same text twice.
   */
  String needWords;

  /** The group, or null when it is unset or blank. */
  final String group;

  /** The ids of every requested resource name, whatever its quantity: the names it brings in. */
  final int[] requestedNames;

  /**
   * {@link #requestedNames} as bits, for ids below 64 (an index of more names reads the array): a
   * pass leaving its memory reads this beside the view instead of one more array per job.
   */
  final long requestedNameBits;

  /** {@code spec.suspend}: a Queued job that is held waits out of the pass (reason Held). */
  final boolean held;

  /** The instant before which the job may not be admitted (reason BackingOff), or null. */
  final Instant notBefore;

  /** {@code spec.nodeSelector} sorted by label, or null when it selects every node. */
  final SortedMap<String, String> nodeSelector;

  /** Where the job may go by its own selector alone: made once, read by every pass. */
  final QueueSelectors.PlacementLabels ownPlacement;

  /** The number of the job's namespace. */
  final int namespace;

  /** The number of the job's group in its namespace, or -1 without a group. */
  final int groupId;

  /** The numbers of {@link #lockKeys} in the job's namespace, in the same order. */
  final int[] lockIds;

  private static final int[] NO_LOCKS = new int[0];
  private static final JobKey[] NO_AFTER = new JobKey[0];
  private static final int[] NO_AFTER_HASHES = new int[0];

  JobReading(JobView view, ResourceIndex names, ScopeNumbers scopes) {
    this.view = view;
    this.key = view.key();
    this.keyHash = key.hashCode();
    this.phase = view.phase();
    this.queuedAt = view.queuedAt();
    this.node = view.node();
    this.origin = view.origin();
    this.held = view.suspend();
    this.notBefore = view.notBefore();
    this.nodeSelector = view.nodeSelector().isEmpty() ? null : new TreeMap<>(view.nodeSelector());
    this.ownPlacement = QueueSelectors.ofJob(nodeSelector);
    List<String> after =
        view.after().size() <= 1 ? view.after() : List.copyOf(new LinkedHashSet<>(view.after()));
    // Most jobs name no dependency: they share empty arrays, read from cache by every pass.
    this.afterKeys = after.isEmpty() ? NO_AFTER : new JobKey[after.size()];
    this.afterHashes = after.isEmpty() ? NO_AFTER_HASHES : new int[after.size()];
    for (int i = 0; i < afterKeys.length; i++) {
      afterKeys[i] = new JobKey(key.namespace(), after.get(i));
      afterHashes[i] = afterKeys[i].hashCode();
    }
    this.serviceClass = view.serviceClass();
    this.group = view.group() == null || view.group().isBlank() ? null : view.group();
    List<String> found = view.specProblems();
    int[] ids = new int[view.requests().size()];
    long[] amounts = new long[ids.length];
    int[] named = new int[ids.length];
    int positive = 0;
    int n = 0;
    // A Queued job with a quantity out of range is rejected; a holder's (admitted elsewhere, or by
    // a server that enforces nothing) still counts in full, saturating.
    for (Map.Entry<String, Long> e : view.requests().entrySet()) {
      long quantity = e.getValue();
      int id = names.id(e.getKey());
      named[n++] = id;
      if (!Quantities.inRange(quantity)) {
        found = withProblem(found, outOfRange("Request", e));
      }
      if (quantity > 0) {
        // Insertion by id: a job asks for a handful of resources.
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
    this.requestedNames = named;
    long bits = 0;
    for (int id : named) {
      bits |= id < Long.SIZE ? 1L << id : 0;
    }
    this.requestedNameBits = bits;
    this.problems = List.copyOf(found);
    this.resourceIds = positive == ids.length ? ids : Arrays.copyOf(ids, positive);
    this.quantities = positive == amounts.length ? amounts : Arrays.copyOf(amounts, positive);
    this.shape = new RequestShape(resourceIds, quantities);
    this.replicas = view.replicas();
    this.replicaNodes = view.replicaNodes();
    this.totals = replicas == 1 ? quantities : times(quantities, replicas);
    this.lockKeys =
        view.locks().size() <= 1 ? view.locks() : List.copyOf(new TreeSet<>(view.locks()));
    this.namespace = scopes.namespace(key.namespace());
    this.groupId = group == null ? -1 : scopes.group(key.namespace(), group);
    // Most jobs name no lock: they share one empty array, which the pass's lock check then reads
    // from cache instead of one more object per job.
    this.lockIds = lockKeys.isEmpty() ? NO_LOCKS : new int[lockKeys.size()];
    for (int k = 0; k < lockIds.length; k++) {
      lockIds[k] = scopes.lock(key.namespace(), lockKeys.get(k));
    }
  }

  /** Each quantity times {@code count}, saturating as every sum of quantities does. */
  private static long[] times(long[] quantities, int count) {
    long[] out = new long[quantities.length];
    for (int k = 0; k < out.length; k++) {
      out[k] = quantities[k] > Long.MAX_VALUE / count ? Long.MAX_VALUE : quantities[k] * count;
    }
    return out;
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
}
