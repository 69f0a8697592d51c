package io.octomy.batch.controller;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The controller's Prometheus metrics; names are part of the dashboard's contract. */
public final class ControllerMetrics {

  /** One row of the jobs gauge. */
  public record JobCount(String phase, String serviceClass, String reason, long count) {}

  private final MeterRegistry registry;
  private final MultiGauge jobs;
  private final Counter admissions;
  private final Timer passDuration;
  private final AtomicInteger starving = new AtomicInteger();
  private final AtomicInteger assumed = new AtomicInteger();

  /** The jobs gauge's labels of one row. */
  private record JobGaugeRow(String phase, String serviceClass, String reason) {}

  /**
   * The jobs gauge's rows as registered, each reading its own count: a pass sets the counts, and
   * registers rows only when one comes or goes (registering every row on each pass was 2.5 % of the
   * admission loop's time under load).
   */
  private Map<JobGaugeRow, AtomicLong> jobRows = Map.of();

  public ControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.jobs =
        MultiGauge.builder("octomy_jobs")
            .description("BatchJobs by phase, service class and reason")
            .register(registry);
    this.admissions =
        Counter.builder("octomy_admissions")
            .description("Jobs admitted to a node")
            .register(registry);
    this.passDuration =
        Timer.builder("octomy_decision_pass")
            .description("Time of one admission pass, snapshot to decisions")
            .publishPercentileHistogram()
            .register(registry);
    registry.gauge("octomy_starving_jobs", starving);
    registry.gauge("octomy_assumed_admissions", assumed);
  }

  public MeterRegistry registry() {
    return registry;
  }

  public void recordPass(Duration d) {
    passDuration.record(d);
  }

  public void admitted(int n) {
    admissions.increment(n);
  }

  public void statusWrite(ClusterWriter.Result result) {
    registry.counter("octomy_status_writes", "result", result.name().toLowerCase()).increment();
  }

  /** An Event folded into one with a count instead of going out on its own. */
  public void eventFolded() {
    registry.counter("octomy_events_folded").increment();
  }

  public void statusWriteSkipped() {
    registry.counter("octomy_status_writes_skipped").increment();
  }

  public synchronized void jobs(List<JobCount> counts, int starvingJobs, int assumedAdmissions) {
    Map<JobGaugeRow, Long> fresh = new HashMap<>();
    for (JobCount c : counts) {
      fresh.merge(new JobGaugeRow(c.phase(), c.serviceClass(), c.reason()), c.count(), Long::sum);
    }
    if (!fresh.keySet().equals(jobRows.keySet())) {
      // A row kept keeps its holder: the registry's gauge for it reads that one.
      Map<JobGaugeRow, AtomicLong> rows = new HashMap<>();
      fresh.forEach(
          (row, n) -> {
            AtomicLong holder = jobRows.containsKey(row) ? jobRows.get(row) : new AtomicLong();
            holder.set(n);
            rows.put(row, holder);
          });
      jobs.register(
          rows.entrySet().stream()
              .map(
                  e ->
                      MultiGauge.Row.of(
                          Tags.of(
                              "phase",
                              e.getKey().phase(),
                              "class",
                              e.getKey().serviceClass(),
                              "reason",
                              e.getKey().reason()),
                          e.getValue(),
                          AtomicLong::get))
              .toList(),
          true);
      jobRows = rows;
    } else {
      fresh.forEach((row, n) -> jobRows.get(row).set(n));
    }
    starving.set(starvingJobs);
    assumed.set(assumedAdmissions);
  }

  /** Total status writes with the given result so far (for tests and benchmarks). */
  public double statusWrites(ClusterWriter.Result result) {
    Counter c =
        registry.find("octomy_status_writes").tag("result", result.name().toLowerCase()).counter();
    return c == null ? 0 : c.count();
  }
}
