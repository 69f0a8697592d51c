package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.octomy.batch.controller.ClusterWriter;
import io.octomy.batch.controller.ControllerMetrics;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The dashboard queries metrics the controller really exports, under their exported names. */
class DashboardTest {

  private static final Pattern METRIC = Pattern.compile("\\boctomy_[a-z_]+");

  static JsonNode dashboard() throws IOException {
    return new ObjectMapper().readTree(Chart.DIR.resolve("dashboards/octomy-batch.json").toFile());
  }

  @Test
  void everyQueriedMetricIsExportedAndEveryExportedFamilyIsShown() throws IOException {
    Set<String> queried = new TreeSet<>();
    for (JsonNode panel : dashboard().path("panels")) {
      assertThat(panel.path("targets"))
          .as("panel %s has queries", panel.path("title"))
          .isNotEmpty();
      for (JsonNode target : panel.path("targets")) {
        Matcher m = METRIC.matcher(target.path("expr").asText());
        while (m.find()) {
          queried.add(m.group());
        }
      }
    }
    String scrape = scrape();
    Set<String> exported = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^(octomy_[a-z_]+)[{ ]").matcher(scrape);
    while (m.find()) {
      exported.add(m.group(1));
    }
    assertThat(exported).as("the scrape:\n%s", scrape).containsAll(queried);
    assertThat(queried)
        .contains(
            "octomy_jobs",
            "octomy_admissions_total",
            "octomy_decision_pass_seconds_bucket",
            "octomy_status_writes_total",
            "octomy_status_writes_skipped_total",
            "octomy_starving_jobs",
            "octomy_assumed_admissions");
  }

  @Test
  void theLabelsTheDashboardGroupsByExist() throws IOException {
    String scrape = scrape();
    assertThat(scrape)
        .contains(
            "phase=\"Queued\"",
            "class=\"Burstable\"",
            "reason=\"WaitingForCapacity\"",
            "result=\"written\"");
    assertThat(dashboard().toString())
        .contains("sum by (phase)", "sum by (reason)", "sum by (class)", "sum by (result)");
  }

  @Test
  void theOptionalConfigMapHoldsTheDashboard() throws IOException {
    JsonNode cm =
        Chart.template(Map.of("grafanaDashboard.enabled", "true"))
            .get("ConfigMap", "octomy-batch-dashboard");
    assertThat(new ObjectMapper().readTree(cm.at("/data/octomy-batch.json").asText()))
        .isEqualTo(dashboard());
    assertThat(Chart.defaults().find("ConfigMap", "octomy-batch-dashboard")).isEmpty();
  }

  /** What a controller exports after a little work. */
  private static String scrape() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerMetrics metrics = new ControllerMetrics(registry);
    metrics.jobs(
        List.of(
            new ControllerMetrics.JobCount("Queued", "Burstable", "WaitingForCapacity", 3),
            new ControllerMetrics.JobCount("Running", "Guaranteed", "Admitted", 1)),
        1,
        0);
    metrics.admitted(1);
    metrics.recordPass(Duration.ofMillis(3));
    metrics.statusWrite(ClusterWriter.Result.WRITTEN);
    metrics.statusWriteSkipped();
    return registry.scrape();
  }
}
