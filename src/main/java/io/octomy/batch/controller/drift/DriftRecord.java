package io.octomy.batch.controller.drift;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The drift record of one job type in one namespace ({@code BatchJobProfile.status}): how many runs
 * were folded in, how many went over a limit, and per resource what was declared versus used.
 * Immutable; {@link DriftFolder#fold} returns a new one.
 *
 * @param runs runs folded in
 * @param overLimitRuns runs whose peak went above any declared limit
 * @param resources per resource name, sorted by name
 * @param foldedJobs UIDs of the most recent folded jobs, oldest first; a UID listed here is not
 *     folded again
 * @param runTime the measured run times of the recent timed runs
 */
public record DriftRecord(
    long runs,
    long overLimitRuns,
    Map<String, DriftFigures> resources,
    List<String> foldedJobs,
    RunTimeWindow runTime) {

  public DriftRecord {
    resources = Collections.unmodifiableMap(new TreeMap<>(resources));
    foldedJobs = List.copyOf(foldedJobs);
    runTime = runTime == null ? RunTimeWindow.empty() : runTime;
  }

  /** A record without timed runs. */
  public DriftRecord(
      long runs, long overLimitRuns, Map<String, DriftFigures> resources, List<String> foldedJobs) {
    this(runs, overLimitRuns, resources, foldedJobs, RunTimeWindow.empty());
  }

  /** A type never run. */
  public static DriftRecord empty() {
    return new DriftRecord(0, 0, Map.of(), List.of());
  }

  /**
   * The record as plain maps, lists, numbers and strings (null fields left out), ready to be put
   * into a Kubernetes status: {@code runs}, {@code overLimitRuns}, {@code resources.NAME.
   * {requested, usedP50, usedP95, usedMax, waste, suggestedRequest, samples}}, {@code foldedJobs},
   * {@code runTime.{runs, p50Seconds, p90Seconds, maxSeconds, samples}}.
   */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("runs", runs);
    m.put("overLimitRuns", overLimitRuns);
    Map<String, Object> res = new LinkedHashMap<>();
    resources.forEach((name, drift) -> res.put(name, drift.toMap()));
    m.put("resources", res);
    m.put("foldedJobs", new ArrayList<>(foldedJobs));
    m.put("runTime", runTime.toMap());
    return m;
  }

  /**
   * Reads a record back from {@link #toMap()} output, also after a JSON/YAML round trip (where
   * numbers may come back as Integer or Double). Missing parts read as empty; null is {@link
   * #empty()}, so a profile without status starts fresh.
   */
  public static DriftRecord fromMap(Map<?, ?> m) {
    if (m == null) {
      return empty();
    }
    Map<String, DriftFigures> resources = new TreeMap<>();
    if (m.get("resources") instanceof Map<?, ?> res) {
      res.forEach(
          (name, drift) -> {
            if (drift instanceof Map<?, ?> d) {
              resources.put(String.valueOf(name), DriftFigures.fromMap(d));
            }
          });
    }
    List<String> uids =
        m.get("foldedJobs") instanceof List<?> l
            ? l.stream().map(String::valueOf).toList()
            : List.of();
    Long runs = asLong(m.get("runs"));
    Long over = asLong(m.get("overLimitRuns"));
    return new DriftRecord(
        runs == null ? 0 : runs,
        over == null ? 0 : over,
        resources,
        uids,
        RunTimeWindow.fromMap(m.get("runTime")));
  }

  static Long asLong(Object o) {
    if (o == null) {
      return null;
    }
    if (o instanceof Number n) {
      return n.longValue();
    }
    return Long.valueOf(o.toString().trim());
  }
}
