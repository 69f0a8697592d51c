package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/** The folded runs of one job type. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BatchJobProfileStatus {

  /** How many finished runs were folded in. */
  private Long runs;

  /** How many of them went above a declared limit. */
  private Long overLimitRuns;

  /** The largest waste among the resources: the worst-declared resource of the type. */
  private Double waste;

  /** Per resource name: requested against used, the waste and a suggested request. */
  private Map<String, ResourceDrift> resources;

  /**
   * uids of the recent runs already folded in, so a run is counted once even across controller
   * restarts.
   */
  private List<String> foldedJobs;

  /** How long the recent runs took from start to finish, for forecasts of when jobs start. */
  private MeasuredRunTime runTime;

  public MeasuredRunTime getRunTime() {
    return runTime;
  }

  public void setRunTime(MeasuredRunTime runTime) {
    this.runTime = runTime;
  }

  public Long getRuns() {
    return runs;
  }

  public void setRuns(Long runs) {
    this.runs = runs;
  }

  public Long getOverLimitRuns() {
    return overLimitRuns;
  }

  public void setOverLimitRuns(Long overLimitRuns) {
    this.overLimitRuns = overLimitRuns;
  }

  public Double getWaste() {
    return waste;
  }

  public void setWaste(Double waste) {
    this.waste = waste;
  }

  public Map<String, ResourceDrift> getResources() {
    return resources;
  }

  public void setResources(Map<String, ResourceDrift> resources) {
    this.resources = resources;
  }

  public List<String> getFoldedJobs() {
    return foldedJobs;
  }

  public void setFoldedJobs(List<String> foldedJobs) {
    this.foldedJobs = foldedJobs;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(BatchJobProfileStatus.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(BatchJobProfileStatus.class).hash(this);
  }
}
