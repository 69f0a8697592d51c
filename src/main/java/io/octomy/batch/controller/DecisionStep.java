package io.octomy.batch.controller;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.PassMemory;
import io.octomy.batch.admission.QueueStanding;
import io.octomy.batch.admission.QueueView;
import io.octomy.batch.admission.RememberedPass;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.Executor;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Deciding, the first job of a pass: forget assumptions the cache has caught up with, decide over
 * an immutable snapshot, and compose the statuses of the decisions that must be written. Each
 * admission is assumed here, before any write goes out, so the next pass cannot book its place
 * twice.
 */
final class DecisionStep {

  /**
   * What deciding produced.
   *
   * @param snapshot what the pass decided over
   * @param result the pass's decisions
   * @param writes the statuses to write, admissions among them
   * @param admitted admissions assumed in this pass (each has a write)
   * @param skippedUnchanged decisions whose status did not need a write
   * @param decideTime time spent in the pure pass, snapshot included
   * @param memory what the pass left for the next one
   */
  record Decided(
      Snapshot snapshot,
      AdmissionResult result,
      List<StatusWrite> writes,
      int admitted,
      int skippedUnchanged,
      Duration decideTime,
      PassMemory memory,
      List<QueueStanding> queues) {}

  private final AssumedAdmissions assumed;
  private final SnapshotBuilder snapshots;
  private final StatusWriteGate gate;
  private final Policy policy;

  /**
   * What the last pass read of each job, for the next; the pass decides exactly what it would
   * without it (see {@link PassMemory}).
   */
  private PassMemory memory = PassMemory.empty();

  DecisionStep(
      AssumedAdmissions assumed, SnapshotBuilder snapshots, StatusWriteGate gate, Policy policy) {
    this.assumed = assumed;
    this.snapshots = snapshots;
    this.gate = gate;
    this.policy = policy;
  }

  Decided decide(List<BatchJob> jobs, List<BatchNode> nodes, JobsByKey byKey, Instant now) {
    return decide(jobs, nodes, List.of(), byKey, now, List.of());
  }

  /**
   * A pass over the cached jobs, nodes and queues; {@code cleanedUp} are the views of jobs deleted
   * after they succeeded ({@link CleanedUpJobs}), which dependants resolve against and nothing
   * decides.
   */
  Decided decide(
      List<BatchJob> jobs,
      List<BatchNode> nodes,
      List<QueueView> queues,
      JobsByKey byKey,
      Instant now,
      List<JobView> cleanedUp) {
    // Forget assumptions the cache has caught up with (or whose job is gone).
    assumed.retainOnly(
        k -> {
          BatchJob j = byKey.get(k);
          return j != null && snapshots.effectivePhase(j) == JobPhase.Queued;
        });
    gate.retain(byKey);

    long t0 = System.nanoTime();
    SnapshotBuilder.PassViews views =
        snapshots.buildForPass(jobs, nodes, queues, assumed, policy, now, cleanedUp);
    Snapshot snapshot = views.snapshot();
    RememberedPass pass = AdmissionPass.decide(snapshot, memory);
    memory = pass.memory();
    AdmissionResult result = pass.result();
    Duration decideTime = Duration.ofNanos(System.nanoTime() - t0);

    Map<String, Executor> executors = new HashMap<>();
    nodes.forEach(
        n -> executors.put(n.getMetadata().getName(), BatchNodeSpec.executorOf(n.getSpec())));
    List<StatusWrite> writes = new ArrayList<>();
    int skipped = 0;
    int admitted = 0;
    // Each decision's job, queue time and written decision by its snapshot index: no key hashed.
    int[] indexes = result.snapshotIndexes(snapshot);
    int place = 0;
    for (Map.Entry<JobKey, Decision> e : result.decisions().entrySet()) {
      int index = indexes[place++];
      BatchJob job = views.jobs().get(index);
      if (assumed.get(e.getKey(), job.getMetadata().getUid()) != null
          || gate.ourWritePending(job)) {
        continue;
      }
      Instant queued = snapshot.jobs().get(index).queuedAt();
      WrittenDecision written = views.written().get(index);
      if (written.stillWritten(job, e.getValue(), queued)) {
        skipped++;
        continue;
      }
      Executor executor =
          e.getValue() instanceof Decision.Admit a
              ? executors.get(a.node())
              : BatchNodeSpec.DEFAULT_EXECUTOR;
      StatusComposer.Composed c = StatusComposer.decided(job, e.getValue(), queued, executor, now);
      if (job.getStatus() != null
          && StatusComposer.samePriorityAside(job.getStatus(), c.status())) {
        // Written already, as the gate would find: the next pass need not compose it again.
        written.written(job, e.getValue(), queued);
        skipped++;
        continue;
      }
      if (!gate.needsWrite(job, c.status(), now)) {
        skipped++;
        continue;
      }
      boolean admission = e.getValue() instanceof Decision.Admit;
      if (e.getValue() instanceof Decision.Admit a) {
        assumed.assume(
            e.getKey(),
            a.node(),
            a.replicaNodes(),
            job.getMetadata().getUid(),
            c.status().getAdmission());
        admitted++;
      }
      writes.add(new StatusWrite(job, c, admission));
    }
    return new Decided(
        snapshot, result, writes, admitted, skipped, decideTime, memory, pass.queues());
  }
}
