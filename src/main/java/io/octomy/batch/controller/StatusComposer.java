package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Condition;
import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.Reason;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.EndedRun;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.Resources;
import io.octomy.batch.api.StatusFields;
import io.octomy.batch.api.WaitingOnRef;
import io.octomy.batch.controller.drift.OverLimit;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.ServiceClass;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Pure: the status a job should have, given its current status and either the admission pass's
 * decision (Queued jobs) or what is known of its run (admitted jobs). Also says which Events the
 * change deserves. It copies the current status and changes only what the new facts change, so
 * comparing the result with the current status tells whether a write is needed at all.
 */
public final class StatusComposer {

  private StatusComposer() {}

  /** The new status and the events of the transition. */
  public record Composed(BatchJobStatus status, List<JobEvent> events) {}

  /**
   * Status for a job the pass decided about, queued since its creation (or now), on a node with the
   * default executor.
   */
  public static Composed decided(BatchJob job, Decision decision, Instant now) {
    return decided(job, decision, null, BatchNodeSpec.DEFAULT_EXECUTOR, now);
  }

  /**
   * Status for a job the pass decided about (it was Queued).
   *
   * @param queuedAt when it entered the queue, as the pass ordered it (to the microsecond, see
   *     {@link QueueTimes}); written once. Null means its creation time, or now.
   * @param executor for an admission: who runs jobs on the node it goes to, recorded with it
   */
  public static Composed decided(
      BatchJob job, Decision decision, Instant queuedAt, Executor executor, Instant now) {
    BatchJobStatus old = job.getStatus() == null ? new BatchJobStatus() : job.getStatus();
    BatchJobStatus s = FIELDS.copy(old);
    List<JobEvent> events = new ArrayList<>();
    long gen = SnapshotBuilder.generation(job);
    s.setServiceClass(serviceClass(job));
    s.setObservedGeneration(gen);
    if (s.getQueuedAt() == null) {
      s.setQueuedAt(
          queuedAt != null
              ? Times.formatMicros(queuedAt)
              : job.getMetadata().getCreationTimestamp() != null
                  ? job.getMetadata().getCreationTimestamp()
                  : Times.format(now));
    }
    s.setPhase(decision.phase());
    if (!decision.phase().isFinished()) {
      s.setFinishedAt(null); // an edited InvalidSpec job is queued again
    }
    s.setReason(decision.reason().code());
    s.setMessage(
        decision.reason() == Reason.BackingOff
            ? failedRunsNote(job) + decision.message()
            : decision.message());
    List<Condition> conditions = s.getConditions();
    boolean wasStarving = Conditions.isTrue(old.getConditions(), ConditionTypes.STARVING);
    s.setAdmission(null); // only an admission holds anything
    s.setReplicaNodes(null); // only a gang's admission names its replicas' nodes
    if (decision instanceof Decision.Admit a) {
      s.setNode(a.node());
      s.setReplicaNodes(a.replicaNodes().isEmpty() ? null : a.replicaNodes());
      s.setAdmission(record(job, a, executor));
      s.setWaitingOn(null);
      s.setEffectivePriority(a.effectivePriority());
      s.setAdmittedAt(Times.format(now));
      conditions =
          Conditions.set(
              conditions,
              ConditionTypes.ADMITTED,
              true,
              Reason.Admitted.code(),
              decision.message(),
              gen,
              now);
      events.add(JobEvent.normal("Admitted", decision.message()));
    } else if (decision instanceof Decision.Wait w) {
      s.setNode(null);
      s.setWaitingOn(
          w.waitingOn().isEmpty()
              ? null
              : w.waitingOn().stream().map(x -> new WaitingOnRef(x.key(), x.job())).toList());
      // Aging alone never causes a write: priority is refreshed only along with another change.
      if (s.getEffectivePriority() == null) {
        s.setEffectivePriority(w.effectivePriority());
      }
      conditions =
          Conditions.set(
              conditions, ConditionTypes.ADMITTED, false, w.reason().code(), w.message(), gen, now);
    } else if (decision instanceof Decision.Skip k) {
      s.setNode(null);
      s.setWaitingOn(null);
      // Decided again on every pass: the same outcome keeps its time, and causes no write.
      s.setFinishedAt(old.getPhase() == JobPhase.Skipped ? old.getFinishedAt() : Times.format(now));
      conditions =
          Conditions.set(
              conditions, ConditionTypes.ADMITTED, false, k.reason().code(), k.message(), gen, now);
      events.add(JobEvent.warning("Skipped", k.message()));
    } else if (decision instanceof Decision.Reject r) {
      s.setNode(null);
      s.setWaitingOn(null);
      s.setFinishedAt(
          old.getPhase() == JobPhase.Rejected && r.reason().code().equals(old.getReason())
              ? old.getFinishedAt()
              : Times.format(now));
      conditions =
          Conditions.set(
              conditions, ConditionTypes.ADMITTED, false, r.reason().code(), r.message(), gen, now);
      events.add(JobEvent.warning("Rejected", r.message()));
    }
    String starvation = decision instanceof Decision.Wait w ? w.starvation() : null;
    boolean starving = starvation != null;
    if (starving || wasStarving) {
      String msg =
          starving
              ? "waiting since "
                  + s.getQueuedAt()
                  + ", longer than the starvation threshold; "
                  + starvation
              : "no longer waiting.";
      conditions =
          Conditions.set(
              conditions,
              ConditionTypes.STARVING,
              starving,
              starving ? "WaitingTooLong" : decision.reason().code(),
              msg,
              gen,
              now);
      if (starving && !wasStarving) {
        events.add(
            JobEvent.warning(
                "Starving", "job has waited past the starvation threshold: " + decision.message()));
      }
    }
    s.setConditions(conditions);
    if (!samePriorityAside(old, s)) {
      // Something else changed, so the write happens anyway: let it carry the current priority.
      s.setEffectivePriority(effectivePriority(decision, s.getEffectivePriority()));
    }
    return new Composed(s, events);
  }

  /** "run 2 exited 3 on node ws-7; failed runs 2 of backoffLimit 3; " for a job backing off. */
  private static String failedRunsNote(BatchJob job) {
    return failedRunsNote(job.getStatus(), job);
  }

  private static String failedRunsNote(BatchJobStatus s, BatchJob job) {
    List<EndedRun> runs = s == null ? null : s.getRuns();
    if (runs == null || runs.isEmpty()) {
      return "";
    }
    EndedRun last = runs.get(runs.size() - 1);
    return "run "
        + last.getRun()
        + " exited "
        + last.getExitCode()
        + " on node "
        + last.getNode()
        + "; failed runs "
        + (s.getFailedRuns() == null ? 0 : s.getFailedRuns())
        + " of backoffLimit "
        + (job.getSpec() == null ? 0 : job.getSpec().retries())
        + "; ";
  }

  /**
   * What the job holds from now on, from the spec it was decided on: node, mode, executor, its
   * positive requests, its distinct locks in order, its group.
   */
  static AdmissionRecord record(BatchJob job, Decision.Admit admit, Executor executor) {
    BatchJobSpec spec = job.getSpec() == null ? new BatchJobSpec() : job.getSpec();
    Map<String, Long> requests = new TreeMap<>();
    if (spec.getResources() != null && spec.getResources().getRequests() != null) {
      spec.getResources()
          .getRequests()
          .forEach(
              (name, q) -> {
                if (q != null && q > 0) {
                  requests.put(name, q);
                }
              });
    }
    List<String> locks =
        spec.getLocks() == null || spec.getLocks().isEmpty()
            ? null
            : List.copyOf(new TreeSet<>(spec.getLocks()));
    String group = spec.getGroup() == null || spec.getGroup().isBlank() ? null : spec.getGroup();
    return new AdmissionRecord(
        admit.node(), admit.mode(), executor, requests.isEmpty() ? null : requests, locks, group);
  }

  /**
   * Status for an admitted job, from what is known of its run, under the default policy, by a
   * controller that serves its output ({@code kubectl octomy logs}), as standalone does.
   */
  public static Composed running(BatchJob job, RunObservation run, Instant now) {
    return running(job, run, now, Policy.defaults(), true);
  }

  /**
   * Status for an admitted job, from what is known of its run.
   *
   * @param policy its retry back-off words a retry's wait
   * @param logsServed whether {@code kubectl octomy logs} reaches the output file its node keeps;
   *     when not, the Events and messages say where the file is and to read it on that node
   */
  public static Composed running(
      BatchJob job, RunObservation run, Instant now, Policy policy, boolean logsServed) {
    RunRetries.Retry retry = RunRetries.of(job, run);
    if (retry != RunRetries.Retry.NONE) {
      return requeued(job, run, retry == RunRetries.Retry.COUNTED, now, policy, logsServed);
    }
    BatchJobStatus old = job.getStatus();
    BatchJobStatus s = FIELDS.copy(old);
    List<JobEvent> events = new ArrayList<>();
    long gen = SnapshotBuilder.generation(job);
    List<Condition> conditions = s.getConditions();
    if (run != null) {
      if (run.phase() == JobPhase.Running && s.getPhase() == JobPhase.Admitted) {
        s.setPhase(JobPhase.Running);
        s.setStartedAt(Times.format(run.startedAt() != null ? run.startedAt() : now));
        s.setMessage("running on " + nodesOf(s) + ".");
        events.add(
            JobEvent.normal(
                "Started", "started on " + nodesOf(s) + "." + where(job, run, logsServed)));
      }
      if (run.phase() == JobPhase.Succeeded || run.phase() == JobPhase.Failed) {
        Instant started = run.startedAt() != null ? run.startedAt() : Times.parse(s.getStartedAt());
        Instant finished = run.finishedAt() != null ? run.finishedAt() : now;
        s.setPhase(run.phase());
        s.setReason(
            run.phase() == JobPhase.Succeeded
                ? Reason.Succeeded.code()
                : RunFollower.REASON_DEADLINE_EXCEEDED.equals(run.reason())
                    ? RunFollower.REASON_DEADLINE_EXCEEDED
                    : Reason.Failed.code());
        s.setExitCode(run.exitCode());
        if (run.phase() == JobPhase.Failed && run.exitCode() != null && run.exitCode() != 0) {
          // The last failed run counts too: backoffLimit 2 ends Failed with failedRuns 3.
          s.setFailedRuns((old.getFailedRuns() == null ? 0 : old.getFailedRuns()) + 1);
        }
        if (s.getStartedAt() == null && started != null) {
          s.setStartedAt(Times.format(started));
        }
        s.setFinishedAt(Times.format(finished));
        s.setMessage(finishMessage(nodesOf(s), run, started, finished));
        String said = s.getMessage() + where(job, run, logsServed);
        events.add(
            run.phase() == JobPhase.Succeeded
                ? JobEvent.normal("Succeeded", said)
                : JobEvent.warning("Failed", said));
      }
      if (!run.peakUsage().isEmpty()) {
        Map<String, Long> peaks = mergePeaks(s.getUsage(), run.peakUsage());
        s.setUsage(peaks);
        Resources r = job.getSpec() == null ? null : job.getSpec().getResources();
        List<String> over =
            OverLimit.exceeded(
                r == null || r.getLimits() == null ? Map.of() : r.getLimits(), peaks);
        if (!over.isEmpty()) {
          boolean was = Conditions.isTrue(old.getConditions(), ConditionTypes.OVER_LIMIT);
          s.setOverLimit(over);
          String msg = overLimitMessage(over, peaks, r.getLimits());
          conditions =
              Conditions.set(
                  conditions, ConditionTypes.OVER_LIMIT, true, "PeakAboveLimit", msg, gen, now);
          if (!was || !Objects.equals(old.getOverLimit(), over)) {
            events.add(JobEvent.warning("OverLimit", msg));
          }
        }
      }
    }
    // A real API server raises a custom resource's generation when a delete marks it (the
    // deletionTimestamp); that is no edit, and a job on its way out has no change to apply.
    if (s.getObservedGeneration() != null
        && gen > s.getObservedGeneration()
        && !s.getPhase().isFinished()
        && job.getMetadata().getDeletionTimestamp() == null) {
      conditions =
          Conditions.set(
              conditions,
              ConditionTypes.SPEC_CHANGE_IGNORED,
              true,
              "AlreadyAdmitted",
              "the spec changed (generation "
                  + gen
                  + ") after the job was admitted at generation "
                  + s.getObservedGeneration()
                  + "; a job holding its place is not changed. Delete and re-create it to apply the change.",
              gen,
              now);
    }
    s.setConditions(conditions);
    return new Composed(s, events);
  }

  /** Reason of a job whose run was lost, until the next pass decides it again. */
  static final String REASON_RUN_LOST = "RunLost";

  /** Earlier runs kept per job: as many as the most retries a job may ask for. */
  static final int RUNS_KEPT = BatchJobSpec.MAX_BACKOFF_LIMIT;

  /**
   * Status for a job whose run ended and is run again: Queued once more, keeping the time it was
   * first queued, with the run kept in {@code status.runs} (its node, exit code and output) and,
   * when it failed, counted in {@code failedRuns}. The next run gets the next number and a new
   * decision; the back-off before it is the pass's (a BackingOff wait).
   */
  static Composed requeued(
      BatchJob job,
      RunObservation run,
      boolean counted,
      Instant now,
      Policy policy,
      boolean logsServed) {
    BatchJobStatus old = job.getStatus();
    BatchJobStatus s = FIELDS.copy(old);
    long gen = SnapshotBuilder.generation(job);
    Instant started = run.startedAt() != null ? run.startedAt() : Times.parse(s.getStartedAt());
    Instant finished = run.finishedAt() != null ? run.finishedAt() : now;
    EndedRun ended = new EndedRun();
    ended.setRun(old.currentRun());
    ended.setNode(old.getNode());
    ended.setExitCode(run.exitCode());
    ended.setReason(run.reason() != null ? run.reason() : Reason.Failed.code());
    ended.setCounted(counted);
    ended.setStartedAt(Times.format(started));
    // The back-off counts from the run's end (or when its loss was noticed).
    ended.setFinishedAt(Times.format(finished));
    ended.setOutput(run.output());
    Map<String, Long> peaks = mergePeaks(old.getUsage(), run.peakUsage());
    ended.setUsage(peaks.isEmpty() ? null : peaks);
    List<EndedRun> runs = new ArrayList<>(old.getRuns() == null ? List.of() : old.getRuns());
    runs.add(ended);
    while (runs.size() > RUNS_KEPT) {
      runs.remove(0);
    }
    int failed = (old.getFailedRuns() == null ? 0 : old.getFailedRuns()) + (counted ? 1 : 0);
    s.setRuns(runs);
    s.setFailedRuns(failed == 0 ? null : failed);
    s.setRun(old.currentRun() + 1);
    s.setPhase(JobPhase.Queued);
    s.setNode(null);
    s.setReplicaNodes(null);
    s.setAdmission(null);
    s.setAdmittedAt(null);
    s.setStartedAt(null);
    s.setFinishedAt(null);
    s.setExitCode(null);
    s.setUsage(null);
    s.setOverLimit(null);
    String said =
        "run "
            + ended.getRun()
            + (counted
                ? " failed on node " + ended.getNode() + " with exit code " + run.exitCode()
                : " was lost on node " + ended.getNode() + " (" + ended.getReason() + ")")
            + (counted
                ? "; failed runs " + failed + " of backoffLimit " + job.getSpec().retries()
                : "; not counted against backoffLimit")
            + ", so it runs again as run "
            + s.getRun()
            + " after a new decision, keeping its place by the time it was queued."
            + (run.output() == null || run.output().isBlank()
                ? ""
                : logsServed
                    ? " Its output: kubectl octomy logs "
                        + job.getMetadata().getName()
                        + " --run "
                        + ended.getRun()
                        + "."
                    : " Its output: " + run.output() + " on node " + ended.getNode() + ".");
    s.setReason(counted ? Reason.BackingOff.code() : REASON_RUN_LOST);
    // Worded as the pass words the wait that follows, so that its decision needs no write.
    Instant notBefore = counted ? SnapshotBuilder.retryNotBefore(s, policy) : null;
    s.setMessage(
        notBefore == null
            ? said
            : failedRunsNote(s, job) + AdmissionPass.backingOffMessage(notBefore));
    s.setConditions(
        Conditions.set(
            s.getConditions(),
            ConditionTypes.ADMITTED,
            false,
            counted ? Reason.BackingOff.code() : REASON_RUN_LOST,
            said,
            gen,
            now));
    List<JobEvent> events =
        List.of(
            counted
                ? JobEvent.warning(
                    "BackingOff",
                    said
                        + " "
                        + AdmissionPass.backingOffMessage(notBefore).replace("backing", "Backing"))
                : JobEvent.warning("RunLost", said));
    return new Composed(s, events);
  }

  /**
   * Status for a job that ran (Succeeded or Failed) and whose spec was edited since: nothing runs
   * again, and the {@code SpecChangeIgnored} condition says so, rather than nothing at all (a
   * GitOps user changes a finished job's command expecting a new run). The same status when the
   * condition already names this generation, so it is written once per edit.
   */
  public static BatchJobStatus finishedButEdited(BatchJob job, Instant now) {
    BatchJobStatus s = FIELDS.copy(job.getStatus());
    if (!editedSinceItRan(job)) {
      return s;
    }
    long gen = SnapshotBuilder.generation(job);
    s.setConditions(
        Conditions.set(
            s.getConditions(),
            ConditionTypes.SPEC_CHANGE_IGNORED,
            true,
            "AlreadyFinished",
            "the spec changed (generation "
                + gen
                + ") after the job "
                + s.getPhase().name().toLowerCase(Locale.ROOT)
                + "; a job that ran does not run again. Delete and re-create it to run it with"
                + " the change.",
            gen,
            now));
    return s;
  }

  /**
   * Whether a job that ran has a spec edit it was not told about yet: cheap, as the loop asks it of
   * every finished job on every pass.
   */
  public static boolean editedSinceItRan(BatchJob job) {
    BatchJobStatus s = job.getStatus();
    if (s == null
        || s.getObservedGeneration() == null
        || s.getPhase() == null
        || !s.getPhase().isFinal()
        || job.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    long gen = SnapshotBuilder.generation(job);
    if (gen <= s.getObservedGeneration()) {
      return false;
    }
    Condition told = Conditions.find(s.getConditions(), ConditionTypes.SPEC_CHANGE_IGNORED);
    return told == null || !Long.valueOf(gen).equals(told.getObservedGeneration());
  }

  private static final StatusFields<BatchJobStatus> FIELDS = StatusFields.of(BatchJobStatus.class);

  /** Aging alone changes this, so it is never a reason to write. */
  private static final String PRIORITY = "effectivePriority";

  /** Wording: how much is free now, which holder a lock has; refreshed at most so often. */
  private static final String[] WORDING = {PRIORITY, "message", "conditions/message"};

  /**
   * " Its output is in FILE on that node (kubectl octomy logs NAME)." for a job whose agent keeps
   * its output in a file; empty otherwise (a Pod's output is read with kubectl logs). Where {@code
   * kubectl octomy logs} cannot reach that node's files (a cluster: the controller runs elsewhere),
   * it says to read the file on that node instead, so that the Event suggests only what works. A
   * job being deleted gets no pointer: its agent removes the file once the job is gone, which is
   * moments after this Event.
   */
  private static String where(BatchJob job, RunObservation run, boolean logsServed) {
    if (run.output() == null || run.output().isBlank()) {
      return "";
    }
    if (job.getMetadata().getDeletionTimestamp() != null) {
      return NodeJob.REASON_STOPPED.equals(run.reason())
          ? " The job was deleted while it ran, so its agent stopped it; its output is removed with"
              + " the job."
          : " The job is being deleted; its output is removed with it.";
    }
    if (!logsServed) {
      return " Its output is in "
          + run.output()
          + " on that node: read it there (e.g. tail -n 100 "
          + run.output()
          + "); kubectl octomy logs reads only output kept where the controller runs.";
    }
    return " Its output is in "
        + run.output()
        + " on that node (kubectl octomy logs "
        + job.getMetadata().getName()
        + ").";
  }

  /** True when the two statuses differ in nothing but effectivePriority. */
  public static boolean samePriorityAside(BatchJobStatus a, BatchJobStatus b) {
    return FIELDS.equal(orEmpty(a), orEmpty(b), PRIORITY);
  }

  /**
   * True when the two statuses differ only in the wording of messages (and priority): same phase,
   * reason, node, waits.
   */
  public static boolean sameButMessages(BatchJobStatus a, BatchJobStatus b) {
    return FIELDS.equal(orEmpty(a), orEmpty(b), WORDING);
  }

  private static BatchJobStatus orEmpty(BatchJobStatus s) {
    return s == null ? new BatchJobStatus() : s;
  }

  public static ServiceClass serviceClass(BatchJob job) {
    Resources r = job.getSpec() == null ? null : job.getSpec().getResources();
    return r == null ? ServiceClass.BestEffort : ServiceClass.of(r.getRequests(), r.getLimits());
  }

  private static long effectivePriority(Decision d, Long fallback) {
    if (d instanceof Decision.Admit a) {
      return a.effectivePriority();
    }
    if (d instanceof Decision.Wait w) {
      return w.effectivePriority();
    }
    return fallback == null ? 0L : fallback;
  }

  private static Map<String, Long> mergePeaks(Map<String, Long> old, Map<String, Long> fresh) {
    Map<String, Long> out = new TreeMap<>();
    if (old != null) {
      out.putAll(old);
    }
    fresh.forEach((k, v) -> out.merge(k, v, Math::max));
    return out;
  }

  private static String overLimitMessage(
      List<String> over, Map<String, Long> peaks, Map<String, Long> limits) {
    List<String> parts = new ArrayList<>();
    for (String name : over) {
      parts.add(
          "measured peak "
              + peaks.get(name)
              + " "
              + name
              + " is above its limit "
              + limits.get(name));
    }
    return String.join("; ", parts) + ". Nothing is stopped; raise the limit or fix the job.";
  }

  /** "node A", or for a gang "nodes A, B" (each replica's, in index order). */
  private static String nodesOf(BatchJobStatus s) {
    List<String> gang = s.getReplicaNodes();
    return gang == null || gang.size() < 2
        ? "node " + s.getNode()
        : "nodes " + String.join(", ", gang) + " (one replica each, in order)";
  }

  private static String finishMessage(
      String nodes, RunObservation run, Instant started, Instant finished) {
    StringBuilder b = new StringBuilder(run.phase() == JobPhase.Succeeded ? "succeeded" : "failed");
    b.append(" on ").append(nodes);
    if (run.exitCode() != null) {
      b.append(" with exit code ").append(run.exitCode());
    }
    if (run.reason() != null && !run.reason().equals(run.phase().name())) {
      b.append(" (").append(run.reason()).append(")");
    }
    if (started != null && finished != null && !finished.isBefore(started)) {
      b.append(" after ").append(Duration.between(started, finished).toSeconds()).append(" s");
    }
    b.append('.');
    if (run.detail() != null && !run.detail().isBlank()) {
      b.append(' ').append(run.detail());
    }
    return b.toString();
  }
}
