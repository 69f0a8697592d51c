package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.ServiceClass;
import java.util.List;
import java.util.Map;

/** Written by the controller only: the decision about a job and what the job used. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BatchJobStatus {

  /**
   * Queued, Admitted, Running, Succeeded, Failed, Skipped (a dependency failed) or Rejected
   * (invalid spec or dependency cycle).
   */
  private JobPhase phase;

  /**
   * Derived from resources, never set: Guaranteed (every request equals its limit), BestEffort
   * (nothing declared) or Burstable.
   */
  private ServiceClass serviceClass;

  /** The BatchNode the job was admitted to. */
  private String node;

  /**
   * What the job holds since it was admitted: node, mode, executor, requests, locks and group,
   * recorded at admission. Capacity, locks, group slots and budgets are counted from it.
   */
  private AdmissionRecord admission;

  /**
   * A CamelCase code for the phase or the wait. Waiting: Held, BackingOff, WaitingForDependency,
   * DependencyCycle, WaitingForLock, WaitingForGroup, WaitingForBudget, QueueConflict, QueueCycle,
   * WaitingForQueueMax, HeldForQueueMinimum, WaitingForCapacity, NoNodeFits, HeldForStarvingJob,
   * BestEffortDeferred, RunLost (a run lost with its node, retried). Decided: Admitted, and at the
   * end Succeeded, Failed, DeadlineExceeded, DependencyFailed (Skipped) or InvalidSpec (Rejected).
   * On an array job: ItemsQueued and ItemsRunning.
   */
  private String reason;

  /** The reason as a sentence with numbers, e.g. what is needed and what is free where. */
  private String message;

  /** While waiting for locks: each key and the job that holds it. */
  private List<WaitingOnRef> waitingOn;

  /**
   * Class base plus capped aging, as of the last time the decision was written (not updated on
   * every aging tick).
   */
  private Long effectivePriority;

  /** When the job entered the queue (RFC 3339). */
  private String queuedAt;

  /** When the job was admitted to a node (RFC 3339). */
  private String admittedAt;

  /** When the job started running (RFC 3339). */
  private String startedAt;

  /** When the job finished (RFC 3339). */
  private String finishedAt;

  /** Exit code of the job's process or main container, once finished. */
  private Integer exitCode;

  /** Measured peak usage per resource name (of the current or last run). */
  private Map<String, Long> usage;

  /** The number of the current or last run, from 1; absent means 1. */
  private Integer run;

  /** Runs that exited non-zero, counted against spec.backoffLimit. */
  private Integer failedRuns;

  /** The earlier runs of a retried job, oldest first: node, exit code, reason, output. */
  private List<EndedRun> runs;

  /** Resource names whose measured peak went above the declared limit. Nothing is killed. */
  private List<String> overLimit;

  /** An array job's items counted by phase; absent on other jobs. */
  private ArrayStatus array;

  /**
   * A gang's node per replica, in replica order (status.node is the first); absent on a job of one
   * replica.
   */
  private List<String> replicaNodes;

  /**
   * Admitted, Starving, OverLimit, SpecChangeIgnored, NodeMissing and StopPending, each with
   * reason, message and lastTransitionTime.
   */
  private List<Condition> conditions;

  /** The metadata.generation of the spec this status was decided on. */
  private Long observedGeneration;

  public JobPhase getPhase() {
    return phase;
  }

  public void setPhase(JobPhase phase) {
    this.phase = phase;
  }

  public ServiceClass getServiceClass() {
    return serviceClass;
  }

  public void setServiceClass(ServiceClass serviceClass) {
    this.serviceClass = serviceClass;
  }

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public AdmissionRecord getAdmission() {
    return admission;
  }

  public void setAdmission(AdmissionRecord admission) {
    this.admission = admission;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public List<WaitingOnRef> getWaitingOn() {
    return waitingOn;
  }

  public void setWaitingOn(List<WaitingOnRef> waitingOn) {
    this.waitingOn = waitingOn;
  }

  public Long getEffectivePriority() {
    return effectivePriority;
  }

  public void setEffectivePriority(Long effectivePriority) {
    this.effectivePriority = effectivePriority;
  }

  public String getQueuedAt() {
    return queuedAt;
  }

  public void setQueuedAt(String queuedAt) {
    this.queuedAt = queuedAt;
  }

  public String getAdmittedAt() {
    return admittedAt;
  }

  public void setAdmittedAt(String admittedAt) {
    this.admittedAt = admittedAt;
  }

  public String getStartedAt() {
    return startedAt;
  }

  public void setStartedAt(String startedAt) {
    this.startedAt = startedAt;
  }

  public String getFinishedAt() {
    return finishedAt;
  }

  public void setFinishedAt(String finishedAt) {
    this.finishedAt = finishedAt;
  }

  public Integer getExitCode() {
    return exitCode;
  }

  public void setExitCode(Integer exitCode) {
    this.exitCode = exitCode;
  }

  public Map<String, Long> getUsage() {
    return usage;
  }

  public void setUsage(Map<String, Long> usage) {
    this.usage = usage;
  }

  public Integer getRun() {
    return run;
  }

  public void setRun(Integer run) {
    this.run = run;
  }

  /** The current run's number: {@code run}, 1 when unset. */
  public int currentRun() {
    return run == null || run < 1 ? 1 : run;
  }

  public Integer getFailedRuns() {
    return failedRuns;
  }

  public void setFailedRuns(Integer failedRuns) {
    this.failedRuns = failedRuns;
  }

  public List<EndedRun> getRuns() {
    return runs;
  }

  public void setRuns(List<EndedRun> runs) {
    this.runs = runs;
  }

  public List<String> getOverLimit() {
    return overLimit;
  }

  public void setOverLimit(List<String> overLimit) {
    this.overLimit = overLimit;
  }

  public ArrayStatus getArray() {
    return array;
  }

  public void setArray(ArrayStatus array) {
    this.array = array;
  }

  public List<String> getReplicaNodes() {
    return replicaNodes;
  }

  public void setReplicaNodes(List<String> replicaNodes) {
    this.replicaNodes = replicaNodes;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(BatchJobStatus.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(BatchJobStatus.class).hash(this);
  }
}
