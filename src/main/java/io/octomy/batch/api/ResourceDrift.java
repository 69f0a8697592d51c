package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/** Declared against used, for one resource of one job type. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ResourceDrift {

  /** The request of the latest run. */
  private Long requested;

  /** Median of the measured peaks over the recent runs. */
  private Long usedP50;

  /** 95th percentile of the measured peaks over the recent runs. */
  private Long usedP95;

  /** Largest measured peak over the recent runs. */
  private Long usedMax;

  /**
   * Share of the reservation not used at p95, from 0 to 1: one minus the p95 of each recent run's
   * peak as a share of what that run requested (1 - usedP95 / requested when every run asked the
   * same).
   */
  private Double waste;

  /**
   * What a person would write as the request instead: usedP95 plus 10% headroom, rounded to two
   * significant figures.
   */
  private Long suggestedRequest;

  /**
   * Measured peaks of the recent runs (oldest first): the window the percentiles are exact over.
   */
  private List<Long> samples;

  /**
   * What each run of samples requested, in the same order (0 where it requested nothing): waste is
   * measured against what each run asked, so runs with different requests are compared fairly.
   */
  private List<Long> sampleRequests;

  public List<Long> getSampleRequests() {
    return sampleRequests;
  }

  public void setSampleRequests(List<Long> sampleRequests) {
    this.sampleRequests = sampleRequests;
  }

  public List<Long> getSamples() {
    return samples;
  }

  public void setSamples(List<Long> samples) {
    this.samples = samples;
  }

  public Long getRequested() {
    return requested;
  }

  public void setRequested(Long requested) {
    this.requested = requested;
  }

  public Long getUsedP50() {
    return usedP50;
  }

  public void setUsedP50(Long usedP50) {
    this.usedP50 = usedP50;
  }

  public Long getUsedP95() {
    return usedP95;
  }

  public void setUsedP95(Long usedP95) {
    this.usedP95 = usedP95;
  }

  public Long getUsedMax() {
    return usedMax;
  }

  public void setUsedMax(Long usedMax) {
    this.usedMax = usedMax;
  }

  public Double getWaste() {
    return waste;
  }

  public void setWaste(Double waste) {
    this.waste = waste;
  }

  public Long getSuggestedRequest() {
    return suggestedRequest;
  }

  public void setSuggestedRequest(Long suggestedRequest) {
    this.suggestedRequest = suggestedRequest;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResourceDrift d
        && Objects.equals(requested, d.requested)
        && Objects.equals(usedP50, d.usedP50)
        && Objects.equals(usedP95, d.usedP95)
        && Objects.equals(usedMax, d.usedMax)
        && Objects.equals(waste, d.waste)
        && Objects.equals(suggestedRequest, d.suggestedRequest)
        && Objects.equals(samples, d.samples)
        && Objects.equals(sampleRequests, d.sampleRequests);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        requested, usedP50, usedP95, usedMax, waste, suggestedRequest, samples, sampleRequests);
  }
}
