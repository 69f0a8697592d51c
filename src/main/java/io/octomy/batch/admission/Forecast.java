package io.octomy.batch.admission;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 * @param itemsToCome the items of array jobs not created yet ({@link ArrayShape}): forecast like
 *     jobs, so that their array jobs and whatever comes after them have an expected end, but they
 *     are no objects, and no answer lists them as jobs
 */
public record Forecast(
    AdmissionResult next,
    Map<JobKey, GateReport> reports,
    Map<JobKey, ExpectedStart> starts,
    Map<JobKey, Instant> ends,
    int passes,
    Set<JobKey> itemsToCome) {

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
    itemsToCome = Set.copyOf(itemsToCome);
  }

  /** A forecast of a world with every array job's items created. */
  public Forecast(
      AdmissionResult next,
      Map<JobKey, GateReport> reports,
      Map<JobKey, ExpectedStart> starts,
      Map<JobKey, Instant> ends,
      int passes) {
    this(next, reports, starts, ends, passes, Set.of());
  }

  /** The same forecast, knowing these of its jobs for items to come. */
  Forecast withItemsToCome(Set<JobKey> keys) {
    return keys.isEmpty() ? this : new Forecast(next, reports, starts, ends, passes, keys);
  }

  /** Whether {@code job} is a job that exists, not an array's item to come. */
  public boolean exists(JobKey job) {
    return !itemsToCome.contains(job);
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
