package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.fixtures.UiAddress;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chromium.ChromiumDriver;

/**
 * The first look after a start with nobody reading: the controller forecast its first pass, before
 * the jobs were created, and nothing since. The page is answered at once from that forecast and
 * says it is an older pass's, with its time and age, and draws the last pass's waiting jobs once
 * that forecast is computed; the API names the pass of every list.
 */
class UiOlderForecastE2E {

  @TempDir Path dir;

  /** Runs before the page's scripts: what the page said when its first bar was drawn. */
  private static final String PROBE =
      """
      window.__saidAtFirstBar = null;
      new MutationObserver(() => {
        if (window.__saidAtFirstBar === null && document.querySelector('main svg.timeline a.bar')) {
          window.__saidAtFirstBar = [...document.querySelectorAll('main p')]
            .map((p) => p.textContent).find((t) => t.includes('Hover a bar')) || '';
        }
      }).observe(document, { childList: true, subtree: true });
      """;

  @Test
  void theFirstLookIsAnsweredFromTheFirstPassesForecastSaidToBeOlder() throws Exception {
    Path bin = UiBenchWorld.pluginFolder(dir);
    try (StandaloneProcess sa = UiBenchWorld.standalone(dir);
        KubernetesClient client = UiBenchWorld.clientOf(sa);
        UiBenchWorld world = new UiBenchWorld(client)) {
      // two nodes, two jobs running on each, three waiting; the queue is not read meanwhile
      world.namespaces();
      world.nodes(1);
      world.jobs("run", 4);
      world.jobs("wait", 3);
      Eventually.until(
          Duration.ofSeconds(60),
          "4 jobs placed and 3 waiting",
          () -> {
            var jobs = client.resources(BatchJob.class).inAnyNamespace().list().getItems();
            long placed =
                jobs.stream()
                    .filter(j -> j.getStatus() != null && j.getStatus().getNode() != null)
                    .count();
            long waiting =
                jobs.stream()
                    .filter(
                        j ->
                            j.getStatus() != null
                                && j.getStatus().getPhase() == JobPhase.Queued
                                && j.getStatus().getReason() != null)
                    .count();
            return placed == 4 && waiting == 3;
          });
      Kubectl k =
          new Kubectl(
                  Kubectl.versions().get(0),
                  sa.kubeconfig,
                  Files.createDirectories(dir.resolve("h")))
              .withPluginsFrom(bin);
      Process ui = k.startTo(dir.resolve("ui.log"), "octomy", "ui");
      WebDriver browser = UiE2E.browser();
      try {
        String url = UiAddress.awaitPrinted(ui, dir.resolve("ui.log")) + "#/timeline?ns=*";
        ((ChromiumDriver) browser)
            .executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", PROBE));
        browser.get(url);
        JavascriptExecutor js = (JavascriptExecutor) browser;
        Eventually.until(
            Duration.ofSeconds(30),
            "the first bar drawn",
            () -> js.executeScript("return window.__saidAtFirstBar") != null);
        assertThat((String) js.executeScript("return window.__saidAtFirstBar"))
            .as("the first pass's forecast, given at once, said to be an older pass's")
            .containsPattern("Waiting jobs as forecast at the pass of .+ \\(.+ ago\\)")
            .contains("the last pass's forecast is being computed");
        Eventually.until(
            Duration.ofSeconds(30),
            "the three waiting jobs drawn from the last pass's forecast",
            () -> browser.findElements(By.cssSelector("svg.timeline a.bar.waiting")).size() == 3);
      } finally {
        browser.quit();
        ui.destroy();
        ui.waitFor();
      }
      String last =
          k.run("get", "--raw", "/apis/visibility.batch.octomy.io/v1alpha1/pendingjobs").out();
      assertThat(last)
          .as("a list that waits for the last pass's forecast names it")
          .contains("\"ofLastPass\":true")
          .containsPattern("\"resourceVersion\":\"\\d+\"")
          .contains("\"passTime\":\"");
    }
  }
}
