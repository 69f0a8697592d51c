package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.ArraySpec;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What an array job does next, from its items alone ({@link ArrayProgress}): which items to create
 * under maxRunning and the budget, the parent's counts and phase, and how the pass sees it.
 */
class ArrayProgressTest {

  private static final Instant NOW = TestClock.START;

  private static BatchJob parent(int count, Integer maxRunning) {
    BatchJob job = aJob("x").cpu(100).build();
    job.getMetadata().setUid("uid-x");
    job.getSpec().setArray(new ArraySpec(count, maxRunning));
    return job;
  }

  private static BatchJob item(int index, JobPhase phase) {
    BatchJobStatus s = new BatchJobStatus();
    s.setPhase(phase);
    s.setReason(phase.name());
    s.setMessage("run 1 exited 3 on node n1.");
    return aJob("x-" + index).status(s).build();
  }

  private static Map<Integer, BatchJob> items(JobPhase... phases) {
    Map<Integer, BatchJob> out = new HashMap<>();
    for (int i = 0; i < phases.length; i++) {
      if (phases[i] != null) {
        out.put(i, item(i, phases[i]));
      }
    }
    return out;
  }

  /** The parent with {@code status} written, as the cache shows it next. */
  private static BatchJob withStatus(BatchJob parent, BatchJobStatus status) {
    parent.setStatus(status);
    return parent;
  }

  @Test
  void aNewArrayCreatesUpToMaxRunningAndIsQueued() {
    ArrayProgress.Plan p = ArrayProgress.plan(parent(5, 2), Map.of(), Set.of(), 100, NOW);
    assertThat(p.create()).containsExactly(0, 1);
    BatchJobStatus s = p.status();
    assertThat(s.getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(s.getReason()).isEqualTo("ItemsQueued");
    assertThat(s.getArray().getCreated()).isEqualTo(2);
    assertThat(s.getArray().getQueued()).isEqualTo(2);
    assertThat(s.getArray().getItems()).isEqualTo("0/5");
    assertThat(s.getMessage())
        .isEqualTo(
            "0 of 5 items succeeded, 0 running, 2 queued, 3 not created yet; at most 2 unfinished"
                + " at once.");
    assertThat(p.view().phase()).as("never Queued: never decided").isEqualTo(JobPhase.Running);
    assertThat(p.view().requests()).as("holds nothing").isEmpty();
    assertThat(p.view().node()).isNull();
  }

  @Test
  void aFinishedItemMakesRoomForTheNextOne() {
    BatchJob parent = parent(5, 2);
    BatchJobStatus was = ArrayProgress.plan(parent, Map.of(), Set.of(), 100, NOW).status();
    withStatus(parent, was);
    ArrayProgress.Plan p =
        ArrayProgress.plan(parent, items(JobPhase.Succeeded, JobPhase.Running), Set.of(), 100, NOW);
    assertThat(p.create()).containsExactly(2);
    assertThat(p.status().getPhase()).isEqualTo(JobPhase.Running);
    assertThat(p.status().getReason()).isEqualTo("ItemsRunning");
    assertThat(p.status().getArray().getSucceeded()).isEqualTo(1);
    assertThat(p.status().getArray().getRunning()).isEqualTo(1);
    assertThat(p.status().getArray().getQueued()).as("x-2, created now").isEqualTo(1);
  }

  @Test
  void queuedItemsCountAgainstMaxRunning() {
    BatchJob parent = parent(5, 2);
    ArrayProgress.Plan p =
        ArrayProgress.plan(parent, items(JobPhase.Queued, JobPhase.Queued), Set.of(), 100, NOW);
    assertThat(p.create()).isEmpty();
  }

  @Test
  void withoutMaxRunningTheBudgetBoundsTheCreates() {
    ArrayProgress.Plan p = ArrayProgress.plan(parent(10, null), Map.of(), Set.of(), 3, NOW);
    assertThat(p.create()).containsExactly(0, 1, 2);
    assertThat(p.status().getMessage()).doesNotContain("at most");
  }

  @Test
  void aMissingItemIsCreatedAgainUnlessItsCreateIsOnItsWay() {
    BatchJob parent = parent(5, 2);
    withStatus(parent, ArrayProgress.plan(parent, Map.of(), Set.of(), 100, NOW).status());
    Map<Integer, BatchJob> onlySecond = items(null, JobPhase.Queued);
    assertThat(ArrayProgress.plan(parent, onlySecond, Set.of(), 100, NOW).create())
        .as("x-0 gone: created again, and x-2 waits for room")
        .containsExactly(0);
    ArrayProgress.Plan inFlight = ArrayProgress.plan(parent, onlySecond, Set.of(0), 100, NOW);
    assertThat(inFlight.create()).isEmpty();
    assertThat(inFlight.status()).as("the counts stand").isNull();
  }

  @Test
  void everyItemSucceededSucceedsTheArrayForGood() {
    BatchJob parent = parent(3, null);
    JobPhase ok = JobPhase.Succeeded;
    ArrayProgress.Plan p = ArrayProgress.plan(parent, items(ok, ok, ok), Set.of(), 100, NOW);
    assertThat(p.status().getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(p.status().getMessage()).isEqualTo("all 3 items succeeded.");
    assertThat(p.status().getFinishedAt()).isEqualTo(Times.format(NOW));
    assertThat(p.status().getArray().getItems()).isEqualTo("3/3");
    assertThat(p.view().phase()).isEqualTo(JobPhase.Succeeded);
    withStatus(parent, p.status());
    ArrayProgress.Plan after = ArrayProgress.plan(parent, Map.of(), Set.of(), 100, NOW);
    assertThat(after.status()).as("final: items deleted later change nothing").isNull();
    assertThat(after.create()).isEmpty();
    assertThat(after.view().phase()).isEqualTo(JobPhase.Succeeded);
    assertThat(p.shape()).as("an ended array has nothing to forecast").isNull();
  }

  @Test
  void aFailedItemFailsTheArrayAndStopsTheCreates() {
    BatchJob parent = parent(4, null);
    ArrayProgress.Plan p =
        ArrayProgress.plan(parent, items(JobPhase.Succeeded, JobPhase.Failed), Set.of(), 100, NOW);
    assertThat(p.create()).isEmpty();
    assertThat(p.status().getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(p.status().getReason()).isEqualTo("Failed");
    assertThat(p.status().getMessage())
        .isEqualTo("item x-1 failed: run 1 exited 3 on node n1; no more items are created.");
    assertThat(p.view().phase()).isEqualTo(JobPhase.Failed);
  }

  @Test
  void aSkippedItemSkipsTheArray() {
    BatchJobStatus skipped = new BatchJobStatus();
    skipped.setPhase(JobPhase.Skipped);
    skipped.setReason("DependencyFailed");
    skipped.setMessage("skipped: dependency prep failed.");
    Map<Integer, BatchJob> items = Map.of(0, aJob("x-0").status(skipped).build());
    ArrayProgress.Plan p = ArrayProgress.plan(parent(3, 1), items, Set.of(), 100, NOW);
    assertThat(p.status().getPhase()).isEqualTo(JobPhase.Skipped);
    assertThat(p.status().getReason()).isEqualTo("DependencyFailed");
    assertThat(p.status().getMessage()).isEqualTo("item x-0: skipped: dependency prep failed.");
    assertThat(p.view().phase()).as("its dependants are skipped too").isEqualTo(JobPhase.Skipped);
    assertThat(p.create()).isEmpty();
  }

  @Test
  void aHeldOrDeletedArrayCreatesNothing() {
    BatchJob held = parent(3, null);
    held.getSpec().setSuspend(true);
    ArrayProgress.Plan p = ArrayProgress.plan(held, Map.of(), Set.of(), 100, NOW);
    assertThat(p.create()).isEmpty();
    assertThat(p.status().getMessage())
        .endsWith("held: no more items are created while" + " spec.suspend is true.");
    assertThat(p.shape().createsItems()).as("a forecast adds no items to a held array").isFalse();
    BatchJob deleting = parent(3, null);
    deleting.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    assertThat(ArrayProgress.plan(deleting, Map.of(), Set.of(), 100, NOW).create()).isEmpty();
  }

  @Test
  void anInvalidArrayIsRejectedWithWhatToWrite() {
    BatchJob parent = parent(3, null);
    parent.getSpec().getArray().setCount(0);
    ArrayProgress.Plan p = ArrayProgress.plan(parent, Map.of(), Set.of(), 100, NOW);
    assertThat(p.status().getPhase()).isEqualTo(JobPhase.Rejected);
    assertThat(p.status().getReason()).isEqualTo("InvalidSpec");
    assertThat(p.status().getMessage()).contains("spec.array.count");
    assertThat(p.create()).isEmpty();
    assertThat(p.view().specProblems()).isNotEmpty();
  }

  @Test
  void anUnchangedArrayWritesNothing() {
    BatchJob parent = parent(3, 2);
    Map<Integer, BatchJob> items = items(JobPhase.Running, JobPhase.Queued);
    BatchJobStatus first = ArrayProgress.plan(parent, items, Set.of(), 100, NOW).status();
    withStatus(parent, first);
    ArrayProgress.Plan again =
        ArrayProgress.plan(parent, items, Set.of(), 100, NOW.plusSeconds(60));
    assertThat(again.status()).isNull();
    assertThat(again.create()).isEqualTo(List.of());
  }
}
