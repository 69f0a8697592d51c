package io.octomy.batch.controller.drift;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Declared versus used for one resource of a job type, over the last runs that measured it.
 *
 * @param requested the latest run's request; null if the latest run did not request it
 * @param usedP50 median of the measured peaks in the window; null before any measurement
 * @param usedP95 95th percentile (nearest rank) of the measured peaks in the window
 * @param usedMax highest measured peak in the window
 * @param waste {@link DriftMath#waste}; null when nothing is requested or nothing measured
 * @param suggestedRequest {@link DriftMath#suggestedRequest} of p95
 * @param samples the measured peaks of the window, oldest first (kept so percentiles stay exact)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DriftFigures(
    Long requested,
    Long usedP50,
    Long usedP95,
    Long usedMax,
    Double waste,
    Long suggestedRequest,
    List<Long> samples) {

  public DriftFigures {
    samples = samples == null ? List.of() : List.copyOf(samples);
  }

  /** Derives every statistic from the request and the window. */
  static DriftFigures of(Long requested, List<Long> samples) {
    if (samples.isEmpty()) {
      return new DriftFigures(requested, null, null, null, null, null, samples);
    }
    List<Long> sorted = samples.stream().sorted().toList();
    long p95 = DriftMath.percentile(sorted, 95);
    return new DriftFigures(
        requested,
        DriftMath.percentile(sorted, 50),
        p95,
        sorted.get(sorted.size() - 1),
        DriftMath.waste(requested, p95),
        DriftMath.suggestedRequest(p95),
        samples);
  }

  /** As plain maps and lists, null fields left out. */
  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    putIfPresent(m, "requested", requested);
    putIfPresent(m, "usedP50", usedP50);
    putIfPresent(m, "usedP95", usedP95);
    putIfPresent(m, "usedMax", usedMax);
    putIfPresent(m, "waste", waste);
    putIfPresent(m, "suggestedRequest", suggestedRequest);
    m.put("samples", samples);
    return m;
  }

  /** Reads {@link #toMap()} output back, after any JSON or YAML round trip. */
  static DriftFigures fromMap(Map<?, ?> m) {
    Object raw = m.get("samples");
    List<Long> samples =
        raw instanceof List<?> l ? l.stream().map(DriftRecord::asLong).toList() : List.of();
    Object waste = m.get("waste");
    return new DriftFigures(
        DriftRecord.asLong(m.get("requested")),
        DriftRecord.asLong(m.get("usedP50")),
        DriftRecord.asLong(m.get("usedP95")),
        DriftRecord.asLong(m.get("usedMax")),
        waste == null ? null : ((Number) waste).doubleValue(),
        DriftRecord.asLong(m.get("suggestedRequest")),
        samples);
  }

  private static void putIfPresent(Map<String, Object> m, String k, Object v) {
    if (v != null) {
      m.put(k, v);
    }
  }
}
