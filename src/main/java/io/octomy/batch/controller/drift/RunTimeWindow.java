package io.octomy.batch.controller.drift;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The measured run times of a job type's recent runs (whole seconds from start to finish, oldest
 * first), with the percentiles a forecast of when jobs end is made from.
 *
 * @param samples run times in seconds, oldest first, at most the fold's sample window
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunTimeWindow(List<Long> samples) {

  public RunTimeWindow {
    samples = samples == null ? List.of() : List.copyOf(samples);
  }

  public static RunTimeWindow empty() {
    return new RunTimeWindow(List.of());
  }

  /** How many runs the window holds. */
  @JsonProperty("runs")
  public long runs() {
    return samples.size();
  }

  /** Median run time (nearest rank), or null before any timed run. */
  @JsonProperty("p50Seconds")
  public Long p50() {
    return percentile(50);
  }

  /** 90th percentile (nearest rank), or null before any timed run. */
  @JsonProperty("p90Seconds")
  public Long p90() {
    return percentile(90);
  }

  /** The longest run time in the window, or null before any timed run. */
  @JsonProperty("maxSeconds")
  public Long max() {
    return samples.isEmpty() ? null : samples.stream().max(Long::compare).orElseThrow();
  }

  private Long percentile(int p) {
    return samples.isEmpty() ? null : DriftMath.percentile(samples.stream().sorted().toList(), p);
  }

  /** As plain maps: {@code runs, p50Seconds, p90Seconds, maxSeconds, samples}. */
  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("runs", runs());
    if (!samples.isEmpty()) {
      m.put("p50Seconds", p50());
      m.put("p90Seconds", p90());
      m.put("maxSeconds", max());
    }
    m.put("samples", samples);
    return m;
  }

  static RunTimeWindow fromMap(Object raw) {
    if (raw instanceof Map<?, ?> m && m.get("samples") instanceof List<?> l) {
      return new RunTimeWindow(l.stream().map(DriftRecord::asLong).toList());
    }
    return empty();
  }
}
