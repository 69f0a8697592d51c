package io.octomy.batch.controller;

import io.octomy.batch.admission.ArrayShape;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.api.ArrayStatus;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.SpecValidator;
import io.octomy.batch.api.StatusFields;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What an array job ({@code spec.array}) stands at and what comes next, from its items alone: the
 * items to create, the parent's status, and how the admission pass sees the parent. Pure: the
 * caller gives the items it has cached, the creates still on their way and the clock.
 *
 * <p>The parent is never decided: it runs nothing. It is Succeeded once every item succeeded,
 * Failed once one failed past its retries (no more items are created then), Skipped or Rejected
 * while an item is, else Running once an item was admitted and Queued before. Items are created
 * while fewer than {@code maxRunning} are unfinished, at most {@code budget} per call, so a large
 * array costs a bounded number of writes per pass; an item missing below the count created (deleted
 * by hand, or its create lost) is created again.
 */
final class ArrayProgress {

  /** Reason of an array none of whose items has been admitted yet. */
  static final String ITEMS_QUEUED = "ItemsQueued";

  /** Reason of an array some of whose items were admitted. */
  static final String ITEMS_RUNNING = "ItemsRunning";

  private static final StatusFields<BatchJobStatus> FIELDS = StatusFields.of(BatchJobStatus.class);

  /** The longest name an item may have: a DNS subdomain. */
  private static final int MAX_NAME = 253;

  /**
   * What to do for one array job.
   *
   * @param status the parent's status to write, or null when the cached one stands
   * @param create indexes of the items to create now, lowest first
   * @param view the parent as the admission pass sees it ({@link ArrayShape#parentView})
   * @param shape the array as a forecast completes it, without its item template; null once the
   *     array job has ended or when its spec is invalid
   */
  record Plan(BatchJobStatus status, List<Integer> create, JobView view, ArrayShape shape) {}

  private ArrayProgress() {}

  /**
   * The plan for {@code parent}.
   *
   * @param items the parent's cached items by index
   * @param creating indexes whose create was sent and is not yet in the cache
   * @param budget the most items this call may ask to create
   */
  static Plan plan(
      BatchJob parent,
      Map<Integer, BatchJob> items,
      Set<Integer> creating,
      int budget,
      Instant now) {
    BatchJobStatus old = parent.getStatus() == null ? new BatchJobStatus() : parent.getStatus();
    if (old.getPhase() != null && old.getPhase().isFinal()) {
      return new Plan(null, List.of(), view(parent, old.getPhase(), List.of(), now), null);
    }
    BatchJobSpec spec = parent.getSpec();
    List<String> problems = problems(parent);
    BatchJobStatus next = FIELDS.copy(old);
    next.setServiceClass(StatusComposer.serviceClass(parent));
    next.setObservedGeneration(SnapshotBuilder.generation(parent));
    next.setNode(null);
    next.setWaitingOn(null);
    if (next.getQueuedAt() == null) {
      next.setQueuedAt(queuedAt(parent, now));
    }
    if (!problems.isEmpty()) {
      next.setPhase(JobPhase.Rejected);
      next.setReason("InvalidSpec");
      next.setMessage("invalid spec: " + String.join(" ", problems));
      return new Plan(
          changed(old, next), List.of(), view(parent, JobPhase.Rejected, problems, now), null);
    }
    int count = spec.getArray().getCount();
    int most = spec.getArray().getMaxRunning() == null ? count : spec.getArray().getMaxRunning();
    ArrayStatus was = old.getArray();
    int created = was == null || was.getCreated() == null ? 0 : Math.min(was.getCreated(), count);
    for (int i : items.keySet()) {
      created = i < count ? Math.max(created, i + 1) : created;
    }
    for (int i : creating) {
      created = i < count ? Math.max(created, i + 1) : created;
    }
    int queued = 0;
    int running = 0;
    int succeeded = 0;
    int failed = 0;
    String firstFailed = null;
    BatchJob firstStuck = null; // an item Skipped or Rejected: the array cannot go on without it
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < created; i++) {
      BatchJob item = items.get(i);
      if (item == null) {
        missing.add(i);
        continue;
      }
      BatchJobStatus s = item.getStatus();
      JobPhase phase = s == null || s.getPhase() == null ? JobPhase.Queued : s.getPhase();
      switch (phase) {
        case Succeeded -> succeeded++;
        case Failed -> {
          failed++;
          firstFailed = firstFailed == null ? describe(item) : firstFailed;
        }
        case Admitted, Running -> running++;
        case Queued -> queued++;
        case Skipped, Rejected -> {
          queued++;
          firstStuck = firstStuck == null ? item : firstStuck;
        }
      }
    }
    ArrayStatus counts = new ArrayStatus();
    counts.setItems(succeeded + "/" + count);
    counts.setRunning(running);
    counts.setSucceeded(succeeded);
    counts.setFailed(failed);
    List<Integer> create = new ArrayList<>();
    int createdBefore = created;
    boolean goesOn = firstFailed == null && firstStuck == null && succeeded < count;
    boolean creates =
        goesOn && !spec.suspended() && parent.getMetadata().getDeletionTimestamp() == null;
    if (creates) {
      for (int i : missing) {
        if (create.size() < budget && !creating.contains(i)) {
          create.add(i);
        }
      }
      int unfinished = queued + running + missing.size();
      while (create.size() < budget && created < count && unfinished < most) {
        create.add(created++);
        unfinished++;
      }
    }
    // Items missing from the cache or created just now wait like queued ones.
    counts.setQueued(queued + missing.size() + (created - createdBefore));
    counts.setCreated(created);
    next.setArray(counts);
    JobPhase phase;
    if (firstFailed != null) {
      phase = JobPhase.Failed;
      next.setReason("Failed");
      next.setMessage(firstFailed + "; no more items are created.");
    } else if (succeeded == count) {
      phase = JobPhase.Succeeded;
      next.setReason("Succeeded");
      next.setMessage("all " + count + " items succeeded.");
    } else if (firstStuck != null) {
      phase = firstStuck.getStatus().getPhase();
      next.setReason(firstStuck.getStatus().getReason());
      next.setMessage(
          "item "
              + firstStuck.getMetadata().getName()
              + ": "
              + firstStuck.getStatus().getMessage());
    } else {
      phase = running > 0 || succeeded > 0 ? JobPhase.Running : JobPhase.Queued;
      next.setReason(phase == JobPhase.Running ? ITEMS_RUNNING : ITEMS_QUEUED);
      next.setMessage(message(count, most, counts, spec.suspended()));
    }
    next.setPhase(phase);
    next.setFinishedAt(phase.isFinal() ? Times.format(now) : null);
    ArrayShape shape =
        phase.isFinal()
            ? null
            : new ArrayShape(
                parent.getMetadata().getNamespace(),
                parent.getMetadata().getName(),
                count,
                most,
                creates,
                null,
                now.plusNanos(1));
    return new Plan(
        changed(old, next), List.copyOf(create), view(parent, phase, List.of(), now), shape);
  }

  private static String message(int count, int most, ArrayStatus c, boolean held) {
    int toCreate = count - c.getCreated();
    StringBuilder m =
        new StringBuilder()
            .append(c.getSucceeded())
            .append(" of ")
            .append(count)
            .append(" items succeeded, ")
            .append(c.getRunning())
            .append(" running, ")
            .append(c.getQueued())
            .append(" queued, ")
            .append(toCreate)
            .append(" not created yet");
    if (most < count) {
      m.append("; at most ").append(most).append(" unfinished at once");
    }
    if (held && toCreate > 0) {
      m.append("; held: no more items are created while spec.suspend is true");
    }
    return m.append('.').toString();
  }

  private static String describe(BatchJob item) {
    BatchJobStatus s = item.getStatus();
    StringBuilder m =
        new StringBuilder("item ").append(item.getMetadata().getName()).append(" failed");
    if (s.getMessage() != null && !s.getMessage().isBlank()) {
      m.append(": ")
          .append(
              s.getMessage().endsWith(".")
                  ? s.getMessage().substring(0, s.getMessage().length() - 1)
                  : s.getMessage());
    }
    return m.toString();
  }

  /** The spec's problems, and a name too long to number its items. */
  static List<String> problems(BatchJob parent) {
    List<String> problems = new ArrayList<>(SpecValidator.problems(parent.getSpec()));
    Integer count = parent.getSpec().getArray().getCount();
    if (problems.isEmpty() && count != null) {
      String last = ArrayItems.name(parent.getMetadata().getName(), count - 1);
      if (last.length() > MAX_NAME) {
        problems.add(
            "the name of the last item, "
                + last.substring(0, 40)
                + "..., is longer than "
                + MAX_NAME
                + " characters; give the array job a shorter name.");
      }
    }
    return problems;
  }

  private static BatchJobStatus changed(BatchJobStatus old, BatchJobStatus next) {
    return FIELDS.equal(old, next) ? null : next;
  }

  private static String queuedAt(BatchJob parent, Instant now) {
    String created = parent.getMetadata().getCreationTimestamp();
    return created != null ? created : Times.format(now);
  }

  private static JobView view(BatchJob parent, JobPhase phase, List<String> problems, Instant now) {
    BatchJobStatus s = parent.getStatus();
    Instant queuedAt = s == null ? null : Times.parse(s.getQueuedAt());
    return ArrayShape.parentView(
        parent.getMetadata().getNamespace(),
        parent.getMetadata().getName(),
        SnapshotBuilder.generation(parent),
        phase,
        queuedAt == null ? now : queuedAt,
        problems);
  }
}
