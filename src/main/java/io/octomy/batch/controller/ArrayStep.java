package io.octomy.batch.controller;

import io.octomy.batch.admission.ArrayShape;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Array jobs in the admission loop: each pass takes the parents out of what is decided (they run
 * nothing), creates their next items ({@link ArrayProgress}) and writes their statuses. Creates are
 * remembered until the cache shows the item, so a lagging cache never has one sent twice, and a
 * parent is left alone while a status write of ours to it is out.
 */
final class ArrayStep {

  private static final Logger LOG = LoggerFactory.getLogger(ArrayStep.class);

  /**
   * The most items created in one pass, over every array: the items' own informer events ask for
   * the next pass, so a large array grows by this many writes at a time.
   */
  static final int CREATES_PER_PASS = 100;

  /** The parents taken out of a pass's jobs, and the rest. */
  record Split(
      List<BatchJob> decided, List<BatchJob> parents, Map<String, Map<Integer, BatchJob>> items) {}

  /**
   * What the pass does for its arrays: their views for the pass, writes and creates, and the arrays
   * a forecast completes with their items to come.
   */
  record Planned(
      List<JobView> views,
      List<ArrayStatusWrite> writes,
      List<BatchJob> creates,
      List<ArrayShape> shapes) {
    static final Planned NONE = new Planned(List.of(), List.of(), List.of(), List.of());
  }

  /** An array job's item template as a forecast reads it, made once per generation. */
  private record ItemTemplate(long generation, JobView view) {}

  /** A parent's status to write. */
  record ArrayStatusWrite(BatchJob parent, BatchJobStatus status) {}

  /**
   * How long a create sent is waited for in the cache before it is sent again: a create answered
   * 409 may have met an item of an earlier array job of the same name, still being deleted.
   */
  static final Duration CREATE_PATIENCE = Duration.ofSeconds(30);

  /**
   * Parent uid to the indexes of items whose create was sent and not yet seen in the cache, with
   * when it was sent.
   */
  private final Map<String, Map<Integer, Instant>> creating = new ConcurrentHashMap<>();

  /** Parent uid to its item template, for as long as the parent has items to create. */
  private final Map<String, ItemTemplate> templates = new HashMap<>();

  /** Parents apart from the jobs the pass decides, with each parent's cached items by index. */
  static Split split(Collection<BatchJob> jobs) {
    List<BatchJob> decided = null;
    List<BatchJob> parents = new ArrayList<>(0);
    Map<String, Map<Integer, BatchJob>> items = new HashMap<>();
    for (BatchJob job : jobs) {
      if (ArrayItems.isParent(job)) {
        parents.add(job);
        continue;
      }
      String owner = ArrayItems.parentUid(job);
      int index = owner == null ? -1 : ArrayItems.index(job);
      if (index >= 0) {
        items.computeIfAbsent(owner, k -> new HashMap<>()).put(index, job);
      }
    }
    if (parents.isEmpty()) {
      decided = jobs instanceof List<BatchJob> list ? list : new ArrayList<>(jobs);
    } else {
      decided = new ArrayList<>(jobs.size() - parents.size());
      for (BatchJob job : jobs) {
        if (!ArrayItems.isParent(job)) {
          decided.add(job);
        }
      }
    }
    return new Split(decided, parents, items);
  }

  Planned plan(Split split, StatusWriteGate gate, Instant now) {
    if (split.parents().isEmpty()) {
      creating.clear();
      templates.clear();
      return Planned.NONE;
    }
    List<JobView> views = new ArrayList<>();
    List<ArrayStatusWrite> writes = new ArrayList<>();
    List<BatchJob> creates = new ArrayList<>();
    List<ArrayShape> shapes = new ArrayList<>();
    Set<String> live = new HashSet<>();
    int budget = CREATES_PER_PASS;
    for (BatchJob parent : split.parents()) {
      String uid = parent.getMetadata().getUid();
      live.add(uid);
      Map<Integer, BatchJob> items = split.items().getOrDefault(uid, Map.of());
      Map<Integer, Instant> sent = creating.computeIfAbsent(uid, k -> new ConcurrentHashMap<>());
      sent.keySet().removeAll(items.keySet());
      sent.values().removeIf(at -> !at.plus(CREATE_PATIENCE).isAfter(now));
      boolean pending = gate.ourWritePending(parent);
      ArrayProgress.Plan plan =
          ArrayProgress.plan(parent, items, Set.copyOf(sent.keySet()), pending ? 0 : budget, now);
      views.add(plan.view());
      if (plan.shape() != null) {
        shapes.add(withTemplate(plan.shape(), parent, items.size(), now));
      }
      if (pending) {
        continue; // its cached status is about to change: decide on the one our write left
      }
      if (plan.status() != null) {
        writes.add(new ArrayStatusWrite(parent, plan.status()));
      }
      for (int index : plan.create()) {
        sent.put(index, now);
        creates.add(ArrayItems.item(parent, index));
      }
      budget -= plan.create().size();
    }
    creating.keySet().retainAll(live);
    templates.keySet().retainAll(live);
    return new Planned(views, writes, creates, shapes);
  }

  /** The shape with the view of an item made now, when some item is still to be made. */
  private ArrayShape withTemplate(ArrayShape shape, BatchJob parent, int cached, Instant now) {
    String uid = parent.getMetadata().getUid();
    if (cached >= shape.count()) {
      templates.remove(uid);
      return shape;
    }
    long generation = SnapshotBuilder.generation(parent);
    ItemTemplate known = templates.get(uid);
    if (known == null || known.generation() != generation) {
      BatchJob item = ArrayItems.item(parent, 0);
      known =
          new ItemTemplate(
              generation,
              SnapshotBuilder.candidate(
                  item.getMetadata().getNamespace(),
                  item.getMetadata().getName(),
                  item.getSpec(),
                  now));
      templates.put(uid, known);
    }
    return shape.withItem(known.view());
  }

  /**
   * Sends the creates and status writes on the writers; a create that failed is forgotten, so the
   * next pass sends it again.
   */
  CompletableFuture<Void> send(
      Planned planned, ClusterWriter writer, StatusWriteGate gate, Executor writers, Instant now) {
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    for (BatchJob item : planned.creates()) {
      sent.add(
          CompletableFuture.runAsync(
              () -> {
                boolean created;
                try {
                  created = writer.createJob(item);
                } catch (RuntimeException e) {
                  LOG.warn("creating array item {} failed", item.getMetadata().getName(), e);
                  created = false;
                }
                if (!created) {
                  String parent = item.getMetadata().getOwnerReferences().get(0).getUid();
                  Map<Integer, Instant> s = creating.get(parent);
                  if (s != null) {
                    s.remove(ArrayItems.index(item));
                  }
                }
              },
              writers));
    }
    for (ArrayStatusWrite w : planned.writes()) {
      gate.sending(w.parent());
      sent.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  if (writer.writeStatus(w.parent(), w.status()) == ClusterWriter.Result.WRITTEN) {
                    gate.written(w.parent(), now);
                  }
                } catch (RuntimeException e) {
                  LOG.warn(
                      "writing the status of array job {} failed; tried again on a later pass",
                      w.parent().getMetadata().getName(),
                      e);
                } finally {
                  gate.answered(w.parent());
                }
              },
              writers));
    }
    return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
  }
}
