package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.Map;

/** What a node's agent knows of one job it runs or ran: phase, exit code and measured usage. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeJob {

  /**
   * Reason of a job its agent stopped: the job was deleted, or the controller ended it while it
   * still ran. Both sides read it: the agent writes it, the controller words the job's end by it.
   */
  public static final String REASON_STOPPED = "Stopped";

  /**
   * Reason of a run whose process the agent can no longer follow (it ended while no agent ran and
   * left no exit code). Such a run is retried without counting against spec.backoffLimit.
   */
  public static final String REASON_AGENT_LOST = "AgentLost";

  /** Namespace of the BatchJob. */
  private String namespace;

  /** Name of the BatchJob. */
  private String name;

  /**
   * metadata.uid of the BatchJob, so a re-created job of the same name is not mistaken for this
   * one.
   */
  private String uid;

  /** The run's number ({@code status.run} of the job); absent means 1. */
  private Integer run;

  /** The gang replica this entry reports (0 to spec.replicas - 1); absent means 0. */
  private Integer replica;

  /** Running, Succeeded or Failed. */
  private JobPhase phase;

  /** Why it failed when the process itself did not say, e.g. AgentLost. */
  private String reason;

  /** A sentence saying why, when the agent refused or lost the job. */
  private String message;

  /** Exit code of the process, once finished. */
  private Integer exitCode;

  /** When the process started (RFC 3339). */
  private String startedAt;

  /** When the process finished (RFC 3339). */
  private String finishedAt;

  /** Measured peak usage per resource name. */
  private Map<String, Long> usage;

  /** Measured mean usage per resource name. */
  private Map<String, Long> meanUsage;

  /**
   * Where the job's output is kept on this node: the file a Process job's standard output and error
   * go to.
   */
  private String output;

  public Integer getReplica() {
    return replica;
  }

  public void setReplica(Integer replica) {
    this.replica = replica;
  }

  public String getOutput() {
    return output;
  }

  public void setOutput(String output) {
    this.output = output;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getUid() {
    return uid;
  }

  public void setUid(String uid) {
    this.uid = uid;
  }

  public Integer getRun() {
    return run;
  }

  public void setRun(Integer run) {
    this.run = run;
  }

  /** The run's number: {@code run}, 1 when unset. */
  public int currentRun() {
    return run == null || run < 1 ? 1 : run;
  }

  /** The gang replica: {@code replica}, 0 when unset. */
  public int currentReplica() {
    return replica == null || replica < 0 ? 0 : replica;
  }

  /**
   * The uid and run number together: one run of one job; a gang's replica 1 and on add {@code /I},
   * so that two replicas on one node stay apart.
   */
  public String runId() {
    return uid + "#" + currentRun() + (currentReplica() == 0 ? "" : "/" + currentReplica());
  }

  public JobPhase getPhase() {
    return phase;
  }

  public void setPhase(JobPhase phase) {
    this.phase = phase;
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

  public Integer getExitCode() {
    return exitCode;
  }

  public void setExitCode(Integer exitCode) {
    this.exitCode = exitCode;
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

  public Map<String, Long> getUsage() {
    return usage;
  }

  public void setUsage(Map<String, Long> usage) {
    this.usage = usage;
  }

  public Map<String, Long> getMeanUsage() {
    return meanUsage;
  }

  public void setMeanUsage(Map<String, Long> meanUsage) {
    this.meanUsage = meanUsage;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(NodeJob.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(NodeJob.class).hash(this);
  }
}
