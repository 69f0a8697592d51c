package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.QueueView;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.EndedRun;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.Resources;
import io.octomy.batch.api.SpecValidator;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Turns the informer caches into the admission pass's immutable snapshot. Admissions still in
 * flight count as admitted, and so do jobs being deleted whose work has not stopped yet; a node
 * still running work whose job is gone counts as full until its agent reports that work ended; an
 * InvalidSpec rejection whose spec has since been edited is queued again, so fixing a manifest is
 * enough to be reconsidered.
 */
public final class SnapshotBuilder {

  private final ValidationCache validation = new ValidationCache();

  private final QueueTimes queueTimes = new QueueTimes();

  /**
   * The view built for each job, by uid. It is handed out again, the same object, while nothing it
   * was built from has changed (the job's resourceVersion and what this builder derives besides),
   * so that the admission pass's memory recognises the job ({@code PassMemory} knows views by
   * identity) and an unchanged job costs no new view. One map changed in place, not one built per
   * pass: a pass over ten thousand unchanged jobs then writes one stamp per job, and the entries of
   * jobs gone are swept only by a pass that finds fewer views than entries.
   */
  private final Map<String, BuiltView> built = new HashMap<>();

  /** The number of the current build, stamped on every view it hands out. */
  private long buildNumber;

  /** The number of views the current build handed out from {@link #built}. */
  private int handedOut;

  /** The policy of the pass being built: its retry back-off sets each retry's notBefore. */
  private Policy passPolicy = Policy.defaults();

  private static final class BuiltView {
    private final String resourceVersion;
    private final JobPhase phase;
    private final String node;
    private final Instant queuedAt;
    private final List<String> problems;
    private final AdmissionRecord held;
    private final JobView view;

    /** Kept with the view: a new view (the job changed) starts without it. */
    private final WrittenDecision written = new WrittenDecision();

    private long lastBuild;

    BuiltView(
        String resourceVersion,
        JobPhase phase,
        String node,
        Instant queuedAt,
        List<String> problems,
        AdmissionRecord held,
        JobView view) {
      this.resourceVersion = resourceVersion;
      this.phase = phase;
      this.node = node;
      this.queuedAt = queuedAt;
      this.problems = problems;
      this.held = held;
      this.view = view;
    }

    boolean builtFrom(
        String resourceVersion,
        JobPhase phase,
        String node,
        Instant queuedAt,
        List<String> problems,
        AdmissionRecord held) {
      return this.resourceVersion.equals(resourceVersion)
          && this.phase == phase
          && Objects.equals(this.node, node)
          && this.queuedAt.equals(queuedAt)
          && this.problems.equals(problems)
          && this.held == held;
    }
  }

  /**
   * A pass's snapshot with, by the index of each job view in it, the cached job the view was built
   * from and what the pass keeps for that job while its view stays the same.
   *
   * @param snapshot what the pass decides over
   * @param jobs by view index: the cached job
   * @param written by view index: the decision whose status that job's object holds, if known
   */
  record PassViews(Snapshot snapshot, List<BatchJob> jobs, List<WrittenDecision> written) {}

  public Snapshot build(
      List<BatchJob> jobs,
      Collection<BatchNode> nodes,
      AssumedAdmissions assumed,
      Policy policy,
      Instant now) {
    return buildForPass(jobs, nodes, assumed, policy, now).snapshot();
  }

  /** The snapshot (without queues), with what a pass reads beside it by view index. */
  PassViews buildForPass(
      List<BatchJob> jobs,
      Collection<BatchNode> nodes,
      AssumedAdmissions assumed,
      Policy policy,
      Instant now) {
    return buildForPass(jobs, nodes, List.of(), assumed, policy, now, List.of());
  }

  /**
   * The snapshot with {@code extra} views after the cached jobs' (finished ones only: they are
   * never decided, so no index of a decision reaches past {@link PassViews#jobs}), with what a pass
   * reads beside it by view index.
   */
  PassViews buildForPass(
      List<BatchJob> jobs,
      Collection<BatchNode> nodes,
      List<QueueView> queues,
      AssumedAdmissions assumed,
      Policy policy,
      Instant now,
      List<JobView> extra) {
    List<JobView> jobViews = new ArrayList<>(jobs.size());
    List<BatchJob> viewed = new ArrayList<>(jobs.size());
    List<WrittenDecision> written = new ArrayList<>(jobs.size());
    List<Instant> queueTimes = this.queueTimes.of(jobs, now);
    passPolicy = policy;
    buildNumber++;
    handedOut = 0;
    for (int i = 0; i < jobs.size(); i++) {
      BatchJob job = jobs.get(i);
      if (job.getMetadata().getDeletionTimestamp() != null
          && !effectivePhase(job).holdsReservation()
          && assumed.get(key(job), job.getMetadata().getUid()) == null) {
        // Being deleted and holding nothing: decided never. One that holds a place keeps it
        // until its run has ended (RunFollower stops it and records the end), so its process or
        // Pod never runs beside a job admitted into its place.
        continue;
      }
      BuiltView b = view(job, assumed, queueTimes.get(i));
      jobViews.add(b.view);
      viewed.add(job);
      written.add(b.written);
    }
    if (built.size() > handedOut) {
      // Some jobs are gone (or no longer viewed): their views go, and their validations with them.
      long current = buildNumber;
      built.values().removeIf(b -> b.lastBuild != current);
      validation.retain(built.keySet());
    }
    jobViews.addAll(extra);
    List<NodeView> nodeViews = new ArrayList<>(nodes.size());
    Set<String> known = null; // the uids of the cached jobs, gathered once a node reports a run
    for (BatchNode node : nodes) {
      if (known == null && reportsUnfinishedRuns(node)) {
        known = new HashSet<>(jobs.size() * 2);
        for (BatchJob job : jobs) {
          known.add(job.getMetadata().getUid());
        }
      }
      nodeViews.add(view(node, known == null ? List.of() : strayRuns(node, known)));
    }
    return new PassViews(new Snapshot(jobViews, nodeViews, policy, now, queues), viewed, written);
  }

  /**
   * The phase the controller should treat a job as being in. Only {@link JobPhase#isFinal() final}
   * outcomes (Succeeded, Failed: the job ran) are taken as they stand; the others are decided again
   * on every pass, so that what the status says stays true:
   *
   * <ul>
   *   <li>Skipped is queued again: a dependant of an ancestor that is fixed, or deleted and
   *       re-created, is skipped no longer (while the ancestor still failed it is skipped again,
   *       and its status does not change);
   *   <li>Rejected for a dependency cycle is queued again: once one of the after entries is
   *       removed, the jobs run;
   *   <li>Rejected for an invalid spec is queued again once the spec is valid.
   * </ul>
   */
  public JobPhase effectivePhase(BatchJob job) {
    BatchJobStatus s = job.getStatus();
    if (s == null || s.getPhase() == null) {
      return JobPhase.Queued;
    }
    if (s.getPhase() == JobPhase.Skipped
        || (s.getPhase() == JobPhase.Rejected
            && Reason.DependencyCycle.code().equals(s.getReason()))) {
      return JobPhase.Queued;
    }
    if (s.getPhase() == JobPhase.Rejected
        && Reason.InvalidSpec.code().equals(s.getReason())
        && validation.problems(job).isEmpty()) {
      return JobPhase.Queued;
    }
    return s.getPhase();
  }

  /**
   * A job that does not exist yet, as the pass would see it if it were created now: Queued, queued
   * now, with the problems its spec has (for "would it fit?").
   */
  public static JobView candidate(String namespace, String name, BatchJobSpec spec, Instant now) {
    BatchJobSpec s = spec == null ? new BatchJobSpec() : spec;
    Resources r = s.getResources();
    return new JobView(
        namespace,
        name,
        1,
        r == null ? null : r.getRequests(),
        r == null ? null : r.getLimits(),
        s.getAfter(),
        s.getLocks(),
        s.getGroup(),
        s.getOrigin(),
        JobPhase.Queued,
        null,
        now,
        SpecValidator.problems(s),
        s.suspended(),
        s.getNodeSelector(),
        null,
        Math.max(1, Math.min(BatchJobSpec.MAX_REPLICAS, s.replicaCount())),
        List.of());
  }

  private BuiltView view(BatchJob job, AssumedAdmissions assumed, Instant queuedAt) {
    BatchJobSpec spec = job.getSpec() == null ? new BatchJobSpec() : job.getSpec();
    BatchJobStatus s = job.getStatus();
    JobKey key = new JobKey(job.getMetadata().getNamespace(), job.getMetadata().getName());
    JobPhase phase = effectivePhase(job);
    AdmissionRecord held = s == null ? null : s.getAdmission();
    String node = s == null ? null : s.getNode();
    List<String> replicaNodes = s == null ? null : s.getReplicaNodes();
    String uid = job.getMetadata().getUid();
    String version = job.getMetadata().getResourceVersion();
    BuiltView last = uid == null || version == null ? null : built.get(uid);
    List<String> problems = List.of();
    if (phase == JobPhase.Queued) {
      AssumedAdmissions.Assumed a = assumed.get(key, uid);
      if (a != null) {
        phase = JobPhase.Admitted;
        node = a.node();
        replicaNodes = a.replicaNodes();
        held = a.record();
      } else if (last != null
          && last.phase == JobPhase.Queued
          && last.resourceVersion.equals(version)) {
        problems = last.problems; // validated at this very version for the view before
      } else {
        problems = validation.problems(job);
      }
    }
    // Not kept without a uid and a version: nothing would tell this object's next state from it.
    boolean kept = uid != null && version != null;
    if (!kept || last == null || !last.builtFrom(version, phase, node, queuedAt, problems, held)) {
      BuiltView fresh =
          new BuiltView(
              kept ? version : "",
              phase,
              node,
              queuedAt,
              problems,
              held,
              newView(job, spec, key, phase, held, node, replicaNodes, queuedAt, problems)
                  .withNotBefore(
                      phase == JobPhase.Queued ? retryNotBefore(job, passPolicy) : null));
      if (!kept) {
        return fresh;
      }
      last = fresh;
      built.put(uid, last);
    }
    if (last.lastBuild != buildNumber) {
      last.lastBuild = buildNumber;
      handedOut++;
    }
    return last;
  }

  /**
   * When a job whose last run failed and is retried may be admitted: the failed run's end plus the
   * policy's back-off for the failed runs so far. Null when its last run was not counted (a lost
   * run is retried at once) or it never ran.
   */
  static Instant retryNotBefore(BatchJob job, Policy policy) {
    return retryNotBefore(job.getStatus(), policy);
  }

  /** {@link #retryNotBefore(BatchJob, Policy)} of a status. */
  static Instant retryNotBefore(BatchJobStatus s, Policy policy) {
    if (s == null || s.getRuns() == null || s.getRuns().isEmpty() || s.getFailedRuns() == null) {
      return null;
    }
    EndedRun last = s.getRuns().get(s.getRuns().size() - 1);
    Instant ended = Times.parse(last.getFinishedAt());
    if (!Boolean.TRUE.equals(last.getCounted()) || ended == null) {
      return null;
    }
    return ended.plus(policy.retryDelay(s.getFailedRuns()));
  }

  private static JobView newView(
      BatchJob job,
      BatchJobSpec spec,
      JobKey key,
      JobPhase phase,
      AdmissionRecord held,
      String node,
      List<String> replicaNodes,
      Instant queuedAt,
      List<String> problems) {
    Resources r = spec.getResources();
    // A gang that holds a place holds one replica per node its status names, whatever the spec
    // says now; a queued one asks for what its spec says (an out-of-range count is InvalidSpec).
    List<String> gangNodes =
        phase.holdsReservation() && replicaNodes != null && replicaNodes.size() > 1
            ? replicaNodes
            : List.of();
    int replicas =
        phase.holdsReservation()
            ? Math.max(1, gangNodes.size())
            : Math.max(1, Math.min(BatchJobSpec.MAX_REPLICAS, spec.replicaCount()));
    if (phase.holdsReservation() && held != null) {
      // What it was admitted with, whatever the spec says now.
      return new JobView(
          key.namespace(),
          key.name(),
          generation(job),
          held.getRequests(),
          r == null ? null : r.getLimits(),
          spec.getAfter(),
          held.getLocks(),
          held.getGroup(),
          spec.getOrigin(),
          phase,
          held.getNode() != null ? held.getNode() : node,
          queuedAt,
          problems,
          spec.suspended(),
          spec.getNodeSelector(),
          null,
          replicas,
          gangNodes);
    }
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
        queuedAt,
        problems,
        spec.suspended(),
        spec.getNodeSelector(),
        null,
        replicas,
        gangNodes);
  }

  /**
   * Runs the node's agent reports unfinished whose jobs the cache does not hold (deleted past their
   * finalizer, or re-created under a new uid): the agent stops them at its next report, and until
   * then they still take the machine.
   */
  static List<String> strayRuns(BatchNode node, Set<String> knownUids) {
    List<String> stray = new ArrayList<>(0);
    for (NodeJob run : reportedRuns(node)) {
      if (couldBeStray(run) && !knownUids.contains(run.getUid())) {
        stray.add(run.getNamespace() + "/" + run.getName());
      }
    }
    return stray;
  }

  /** Whether the node reports a run that is stray unless the cache holds its job. */
  private static boolean reportsUnfinishedRuns(BatchNode node) {
    return reportedRuns(node).stream().anyMatch(SnapshotBuilder::couldBeStray);
  }

  /** A run reported unfinished, with the uid of its job. */
  private static boolean couldBeStray(NodeJob run) {
    return run.getUid() != null && (run.getPhase() == null || !run.getPhase().isFinished());
  }

  private static List<NodeJob> reportedRuns(BatchNode node) {
    BatchNodeStatus st = node.getStatus();
    return st == null || st.getJobs() == null ? List.of() : st.getJobs();
  }

  /** What admission reads of a BatchNode; the modes as the agent reads them, defaults included. */
  public static NodeView view(BatchNode node) {
    return view(node, List.of());
  }

  private static NodeView view(BatchNode node, List<String> strayRuns) {
    var st = node.getStatus();
    return new NodeView(
        node.getMetadata().getName(),
        BatchNodeSpec.modeOf(node.getSpec()),
        BatchNodeSpec.ownModeOf(node.getSpec()),
        st == null ? null : st.getCapacity(),
        st == null ? null : Times.parse(st.getHeartbeatTime()),
        st != null && Conditions.isTrue(st.getConditions(), ConditionTypes.READY),
        st == null ? null : st.getUsage(),
        strayRuns,
        node.getMetadata().getLabels());
  }

  private static JobKey key(BatchJob job) {
    return new JobKey(job.getMetadata().getNamespace(), job.getMetadata().getName());
  }

  /** metadata.generation, 1 when a server leaves it unset. */
  static long generation(BatchJob job) {
    Long g = job.getMetadata().getGeneration();
    return g == null ? 1L : g;
  }
}
