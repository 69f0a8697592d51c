package io.octomy.batch.controller.drift;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
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
 * @param waste {@link DriftMath#waste} over the window's runs; null when none of them requested it
 *     or nothing was measured
 * @param suggestedRequest {@link DriftMath#suggestedRequest} of p95
 * @param samples the measured peaks of the window, oldest first (kept so percentiles stay exact)
 * @param sampleRequests what each run of {@code samples} requested, in the same order (0 where it
 *     requested nothing): waste is measured against what each run asked, not the latest request
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DriftFigures(
    Long requested,
    Long usedP50,
    Long usedP95,
    Long usedMax,
    Double waste,
    Long suggestedRequest,
    List<Long> samples,
    List<Long> sampleRequests) {

  public DriftFigures {
    samples = samples == null ? List.of() : List.copyOf(samples);
    sampleRequests = alignedRequests(sampleRequests, samples.size(), requested);
  }

  /**
   * Derives every statistic from the latest request and the window of peaks with what each of those
   * runs requested.
   */
  static DriftFigures of(Long requested, List<Long> samples, List<Long> sampleRequests) {
    if (samples.isEmpty()) {
      return new DriftFigures(requested, null, null, null, null, null, samples, List.of());
    }
    List<Long> sorted = samples.stream().sorted().toList();
    long p95 = DriftMath.percentile(sorted, 95);
    List<Long> asked = alignedRequests(sampleRequests, samples.size(), requested);
    return new DriftFigures(
        requested,
        DriftMath.percentile(sorted, 50),
        p95,
        sorted.get(sorted.size() - 1),
        DriftMath.waste(samples, asked),
        DriftMath.suggestedRequest(p95),
        samples,
        asked);
  }

  /**
   * One request per sample. A record written before requests were kept per run has fewer (none):
   * its older samples are taken to have asked what its latest run did, the only request it kept.
   */
  private static List<Long> alignedRequests(List<Long> requests, int samples, Long latest) {
    List<Long> given = requests == null ? List.of() : requests;
    if (given.size() == samples) {
      return List.copyOf(given);
    }
    List<Long> out = new ArrayList<>();
    for (int i = given.size(); i < samples; i++) {
      out.add(latest == null ? 0L : latest);
    }
    out.addAll(given.subList(Math.max(0, given.size() - samples), given.size()));
    return List.copyOf(out);
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
    m.put("sampleRequests", sampleRequests);
    return m;
  }

  /** Reads {@link #toMap()} output back, after any JSON or YAML round trip. */
  static DriftFigures fromMap(Map<?, ?> m) {
    Object raw = m.get("samples");
    List<Long> samples =
        raw instanceof List<?> l ? l.stream().map(DriftRecord::asLong).toList() : List.of();
    Object rawAsked = m.get("sampleRequests");
    List<Long> asked =
        rawAsked instanceof List<?> l ? l.stream().map(DriftRecord::asLong).toList() : null;
    Object waste = m.get("waste");
    return new DriftFigures(
        DriftRecord.asLong(m.get("requested")),
        DriftRecord.asLong(m.get("usedP50")),
        DriftRecord.asLong(m.get("usedP95")),
        DriftRecord.asLong(m.get("usedMax")),
        waste == null ? null : ((Number) waste).doubleValue(),
        DriftRecord.asLong(m.get("suggestedRequest")),
        samples,
        asked);
  }

  private static void putIfPresent(Map<String, Object> m, String k, Object v) {
    if (v != null) {
      m.put(k, v);
    }
  }
}
