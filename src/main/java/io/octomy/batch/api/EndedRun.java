package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * One earlier run of a job that was retried: where it ran, how it ended and where its output is, so
 * that it stays readable once the job runs again ({@code kubectl octomy logs NAME --run N}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EndedRun {

  /** The run's number, from 1. */
  private Integer run;

  /** The BatchNode it ran on. */
  private String node;

  /** Exit code of its process or main container, when it exited. */
  private Integer exitCode;

  /** Failed, or why it was lost (AgentLost, NodeDeleted), counted or not. */
  private String reason;

  /** True when it counts against spec.backoffLimit (it failed); false when it was lost. */
  private Boolean counted;

  /** When it started (RFC 3339). */
  private String startedAt;

  /** When it ended, or when its loss was noticed (RFC 3339). */
  private String finishedAt;

  /** Where its output is kept on its node (a Process job's file). */
  private String output;

  /** Its measured peak usage per resource name. */
  private Map<String, Long> usage;

  public Integer getRun() {
    return run;
  }

  public void setRun(Integer run) {
    this.run = run;
  }

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public Integer getExitCode() {
    return exitCode;
  }

  public void setExitCode(Integer exitCode) {
    this.exitCode = exitCode;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public Boolean getCounted() {
    return counted;
  }

  public void setCounted(Boolean counted) {
    this.counted = counted;
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

  public String getOutput() {
    return output;
  }

  public void setOutput(String output) {
    this.output = output;
  }

  public Map<String, Long> getUsage() {
    return usage;
  }

  public void setUsage(Map<String, Long> usage) {
    this.usage = usage;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(EndedRun.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(EndedRun.class).hash(this);
  }
}
