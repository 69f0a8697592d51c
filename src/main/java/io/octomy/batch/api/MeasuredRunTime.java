package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/** How long the recent runs of a job type took, from start to finish. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MeasuredRunTime {

  /** How many recent runs were timed (the samples below). */
  private Long runs;

  /** Median run time in seconds: what forecasts of when a job of this type ends are made from. */
  private Long p50Seconds;

  /** 90th percentile of the run times in seconds. */
  private Long p90Seconds;

  /** Longest recent run time in seconds. */
  private Long maxSeconds;

  /** Run times of the recent runs in whole seconds, oldest first. */
  private List<Long> samples;

  public Long getRuns() {
    return runs;
  }

  public void setRuns(Long runs) {
    this.runs = runs;
  }

  public Long getP50Seconds() {
    return p50Seconds;
  }

  public void setP50Seconds(Long p50Seconds) {
    this.p50Seconds = p50Seconds;
  }

  public Long getP90Seconds() {
    return p90Seconds;
  }

  public void setP90Seconds(Long p90Seconds) {
    this.p90Seconds = p90Seconds;
  }

  public Long getMaxSeconds() {
    return maxSeconds;
  }

  public void setMaxSeconds(Long maxSeconds) {
    this.maxSeconds = maxSeconds;
  }

  public List<Long> getSamples() {
    return samples;
  }

  public void setSamples(List<Long> samples) {
    this.samples = samples;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MeasuredRunTime t
        && Objects.equals(runs, t.runs)
        && Objects.equals(p50Seconds, t.p50Seconds)
        && Objects.equals(p90Seconds, t.p90Seconds)
        && Objects.equals(maxSeconds, t.maxSeconds)
        && Objects.equals(samples, t.samples);
  }

  @Override
  public int hashCode() {
    return Objects.hash(runs, p50Seconds, p90Seconds, maxSeconds, samples);
  }
}
