package io.octomy.batch.controller.drift;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One finished run of a typed job, as folded into its type's {@link DriftRecord}.
 *
 * @param jobUid the BatchJob's {@code metadata.uid}: folding the same UID twice changes nothing
 * @param type {@code spec.type}; the caller folds into the record of this type in the job's
 *     namespace (the record itself does not repeat the name: it is the profile's name)
 * @param requests {@code spec.resources.requests}
 * @param limits {@code spec.resources.limits}
 * @param peakUsage measured peak per resource ({@code status.usage})
 * @param runSeconds whole seconds from {@code startedAt} to {@code finishedAt}; null when either is
 *     unknown (the run is then not timed)
 */
public record FinishedRun(
    String jobUid,
    String type,
    Map<String, Long> requests,
    Map<String, Long> limits,
    Map<String, Long> peakUsage,
    Long runSeconds) {

  /** A run whose time is not known. */
  public FinishedRun(
      String jobUid,
      String type,
      Map<String, Long> requests,
      Map<String, Long> limits,
      Map<String, Long> peakUsage) {
    this(jobUid, type, requests, limits, peakUsage, null);
  }

  public FinishedRun {
    if (jobUid == null || jobUid.isBlank()) {
      throw new IllegalArgumentException("a finished run needs its job's uid");
    }
    if (type == null || type.isBlank()) {
      throw new IllegalArgumentException("only jobs with spec.type are folded into a drift record");
    }
    requests = copy(requests);
    limits = copy(limits);
    peakUsage = copy(peakUsage);
    if (runSeconds != null && runSeconds < 0) {
      throw new IllegalArgumentException("a run cannot end before it starts: " + runSeconds + " s");
    }
  }

  private static Map<String, Long> copy(Map<String, Long> m) {
    Map<String, Long> out = new LinkedHashMap<>();
    if (m != null) {
      m.forEach(
          (k, v) -> {
            if (v != null) {
              out.put(k, v);
            }
          });
    }
    return Collections.unmodifiableMap(out);
  }
}
