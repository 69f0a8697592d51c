package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class ControllerMetricsTest {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ControllerMetrics metrics = new ControllerMetrics(registry);

  private static ControllerMetrics.JobCount count(String phase, String reason, long n) {
    return new ControllerMetrics.JobCount(phase, "Burstable", reason, n);
  }

  @Test
  void theJobsGaugeFollowsEveryPassesCountsAndRows() {
    metrics.jobs(
        List.of(count("Queued", "WaitingForCapacity", 3), count("Admitted", "Admitted", 1)), 2, 1);
    assertThat(registry.scrape())
        .contains(
            "octomy_jobs{class=\"Burstable\",phase=\"Queued\",reason=\"WaitingForCapacity\"} 3.0",
            "octomy_jobs{class=\"Burstable\",phase=\"Admitted\",reason=\"Admitted\"} 1.0",
            "octomy_starving_jobs 2.0",
            "octomy_assumed_admissions 1.0");

    // The same rows, other counts.
    metrics.jobs(
        List.of(count("Queued", "WaitingForCapacity", 1), count("Admitted", "Admitted", 3)), 0, 0);
    assertThat(registry.scrape())
        .contains(
            "octomy_jobs{class=\"Burstable\",phase=\"Queued\",reason=\"WaitingForCapacity\"} 1.0",
            "octomy_jobs{class=\"Burstable\",phase=\"Admitted\",reason=\"Admitted\"} 3.0",
            "octomy_starving_jobs 0.0");

    // A row goes, another comes, the kept one keeps counting.
    metrics.jobs(
        List.of(count("Admitted", "Admitted", 2), count("Succeeded", "Succeeded", 2)), 0, 0);
    assertThat(registry.scrape())
        .contains(
            "octomy_jobs{class=\"Burstable\",phase=\"Admitted\",reason=\"Admitted\"} 2.0",
            "octomy_jobs{class=\"Burstable\",phase=\"Succeeded\",reason=\"Succeeded\"} 2.0")
        .doesNotContain("phase=\"Queued\"");
  }
}
