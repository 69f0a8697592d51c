package io.octomy.batch.admission;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A pass's result together with the gate reports of the jobs it was asked to inspect.
 *
 * @param result the pass's decisions, exactly as {@link AdmissionPass#decide} gives them
 * @param reports per inspected Queued job, every gate it fails at its turn
 */
public record Inspection(AdmissionResult result, Map<JobKey, GateReport> reports) {

  public Inspection {
    reports = Collections.unmodifiableMap(new LinkedHashMap<>(reports));
  }

  public Optional<GateReport> report(JobKey job) {
    return Optional.ofNullable(reports.get(job));
  }
}
