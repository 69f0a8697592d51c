package io.octomy.batch.admission;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The next pass's decisions and, for every Queued job, when later passes are expected to admit it
 * as running jobs end at their expected times ({@link AdmissionPass#forecast}).
 *
 * @param next the next pass, exactly as {@link AdmissionPass#decide} gives it
 * @param reports every gate of the jobs the forecast was asked to inspect, at their turn in the
 *     next pass
 * @param starts per Queued job expected to start, when and where; a job missing here is not
 *     expected to start unless something else changes (it waits for something no predicted end
 *     frees: a missing dependency, a node that could never hold it, a failed ancestor)
 * @param ends when each job that holds or is expected to take a reservation is expected to end
 * @param passes how many later passes were simulated
 */
public record Forecast(
    AdmissionResult next,
    Map<JobKey, GateReport> reports,
    Map<JobKey, ExpectedStart> starts,
    Map<JobKey, Instant> ends,
    int passes) {

  public Forecast {
    reports = Collections.unmodifiableMap(new LinkedHashMap<>(reports));
    // Filled by the forecast and read-only outside this package: taken as they are.
    starts =
        starts instanceof ForecastEntries<ExpectedStart> found
            ? found
            : Collections.unmodifiableMap(new LinkedHashMap<>(starts));
    ends =
        ends instanceof ForecastEntries<Instant> found
            ? found
            : Collections.unmodifiableMap(new LinkedHashMap<>(ends));
  }

  public Optional<GateReport> report(JobKey job) {
    return Optional.ofNullable(reports.get(job));
  }

  public Optional<ExpectedStart> start(JobKey job) {
    return Optional.ofNullable(starts.get(job));
  }

  public Optional<Instant> end(JobKey job) {
    return Optional.ofNullable(ends.get(job));
  }
}
