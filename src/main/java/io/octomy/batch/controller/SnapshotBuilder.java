package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Resources;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns the informer caches into the admission pass's immutable snapshot. Admissions still in
 * flight count as admitted; an InvalidSpec rejection whose spec has since been edited is queued
 * again, so fixing a manifest is enough to be reconsidered.
 */
public final class SnapshotBuilder {

  private final ValidationCache validation = new ValidationCache();

  public Snapshot build(
      Collection<BatchJob> jobs,
      Collection<BatchNode> nodes,
      AssumedAdmissions assumed,
      Policy policy,
      Instant now) {
    List<JobView> jobViews = new ArrayList<>(jobs.size());
    Set<String> uids = new HashSet<>();
    for (BatchJob job : jobs) {
      if (job.getMetadata().getDeletionTimestamp() != null) {
        continue; // being deleted: holds nothing, decided never
      }
      uids.add(job.getMetadata().getUid());
      jobViews.add(view(job, assumed, now));
    }
    validation.retain(uids);
    List<NodeView> nodeViews = new ArrayList<>(nodes.size());
    for (BatchNode node : nodes) {
      nodeViews.add(view(node));
    }
    return new Snapshot(jobViews, nodeViews, policy, now);
  }

  /**
   * The phase the controller should treat a job as being in: its status phase, except that a job
   * rejected for its spec whose spec is valid now (someone fixed the manifest) is queued again.
   */
  public JobPhase effectivePhase(BatchJob job) {
    BatchJobStatus s = job.getStatus();
    if (s == null || s.getPhase() == null) {
      return JobPhase.Queued;
    }
    if (s.getPhase() == JobPhase.Rejected
        && Reason.InvalidSpec.code().equals(s.getReason())
        && validation.problems(job).isEmpty()) {
      return JobPhase.Queued;
    }
    return s.getPhase();
  }

  private JobView view(BatchJob job, AssumedAdmissions assumed, Instant now) {
    BatchJobSpec spec = job.getSpec() == null ? new BatchJobSpec() : job.getSpec();
    BatchJobStatus s = job.getStatus();
    JobKey key = new JobKey(job.getMetadata().getNamespace(), job.getMetadata().getName());
    JobPhase phase = effectivePhase(job);
    String node = s == null ? null : s.getNode();
    List<String> problems = List.of();
    if (phase == JobPhase.Queued) {
      AssumedAdmissions.Assumed a = assumed.get(key, job.getMetadata().getUid());
      if (a != null) {
        phase = JobPhase.Admitted;
        node = a.node();
      } else {
        problems = validation.problems(job);
      }
    }
    Resources r = spec.getResources();
    Instant queuedAt =
        s != null && s.getQueuedAt() != null
            ? Times.parse(s.getQueuedAt())
            : Times.parse(job.getMetadata().getCreationTimestamp());
    return new JobView(
        key.namespace(),
        key.name(),
        generation(job),
        r == null ? null : r.getRequests(),
        r == null ? null : r.getLimits(),
        spec.getAfter(),
        spec.getLocks(),
        spec.getGroup(),
        spec.getOrigin(),
        phase,
        node,
        queuedAt != null ? queuedAt : now,
        problems);
  }

  /** What admission reads of a BatchNode; the modes as the agent reads them, defaults included. */
  public static NodeView view(BatchNode node) {
    var st = node.getStatus();
    return new NodeView(
        node.getMetadata().getName(),
        BatchNodeSpec.modeOf(node.getSpec()),
        BatchNodeSpec.ownModeOf(node.getSpec()),
        st == null ? null : st.getCapacity(),
        st == null ? null : Times.parse(st.getHeartbeatTime()),
        st != null && Conditions.isTrue(st.getConditions(), ConditionTypes.READY),
        st == null ? null : st.getUsage());
  }

  /** metadata.generation, 1 when a server leaves it unset. */
  static long generation(BatchJob job) {
    Long g = job.getMetadata().getGeneration();
    return g == null ? 1L : g;
  }
}
