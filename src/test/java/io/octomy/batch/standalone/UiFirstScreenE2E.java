package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.fixtures.UiAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chromium.ChromiumDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * The timeline of many nodes in headless Chromium: the page reads the lanes of the first nodes by
 * name first (the forecast narrowed to them, the jobs placed on each) and draws those lanes alone,
 * each with all its jobs; then it reads the rest a page at a time and draws every lane.
 */
class UiFirstScreenE2E {

  @TempDir Path dir;

  /** Runs before the page's scripts: the lanes on the page when its first bar is drawn. */
  private static final String PROBE =
      """
      window.__firstLanes = null;
      new MutationObserver(() => {
        if (window.__firstLanes === null && document.querySelector('main svg.timeline a.bar')) {
          window.__firstLanes = [...document.querySelectorAll('svg.timeline g[data-lane]')]
            .map((g) => [g.dataset.lane, g.querySelectorAll('a.bar').length]);
        }
      }).observe(document, { childList: true, subtree: true });
      """;

  @Test
  void theFirstNodesLanesAreReadAndDrawnFirstThenEveryLane() throws Exception {
    Path bin = UiBenchWorld.pluginFolder(dir);
    try (StandaloneProcess sa = UiBenchWorld.standalone(dir);
        KubernetesClient client = UiBenchWorld.clientOf(sa);
        UiBenchWorld world = new UiBenchWorld(client)) {
      // 12 nodes, two jobs running on each, 18 waiting behind them
      world.namespaces();
      world.nodes(11);
      world.jobs("run", 24);
      world.jobs("wait", 18);
      Kubectl k =
          new Kubectl(
                  Kubectl.versions().get(0),
                  sa.kubeconfig,
                  Files.createDirectories(dir.resolve("h")))
              .withPluginsFrom(bin);
      Eventually.until(
          Duration.ofSeconds(60),
          "24 jobs running and 18 waiting with an expected node",
          () ->
              k.run("get", "bj", "-A", "--field-selector", "status.node!=", "-o", "name")
                          .out()
                          .lines()
                          .count()
                      == 24
                  && k.run("get", "--raw", "/apis/visibility.batch.octomy.io/v1alpha1/pendingjobs")
                          .out()
                          .split("\"expectedNode\"", -1)
                          .length
                      == 19);
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
            "every node's lane drawn",
            () -> browser.findElements(By.cssSelector("svg.timeline g[data-lane]")).size() >= 12);
        List<String> firstFive = new ArrayList<>(List.of("bench"));
        for (int i = 0; i < 4; i++) {
          firstFive.add(UiBenchWorld.nodeName(i));
        }
        @SuppressWarnings("unchecked")
        List<List<Object>> first =
            (List<List<Object>>) js.executeScript("return window.__firstLanes");
        assertThat(first).extracting(l -> (String) l.get(0)).containsExactlyElementsOf(firstFive);
        assertThat(first)
            .as("each first lane drawn with its jobs: two running, and those expected there")
            .allSatisfy(l -> assertThat(((Number) l.get(1)).intValue()).isGreaterThanOrEqualTo(2));

        @SuppressWarnings("unchecked")
        List<String> reads =
            (List<String>)
                js.executeScript(
                    "return performance.getEntriesByType('resource').map((e) => e.name)"
                        + ".filter((u) => u.includes('/pendingjobs'))");
        assertThat(reads.get(0))
            .as("the first forecast read asks for the first nodes' jobs only")
            .contains("expectedNode=" + String.join("%2C", firstFive));
        assertThat(reads)
            .as("then the whole forecast, a page at a time, any recent one")
            .anySatisfy(u -> assertThat(u).contains("limit=").contains("resourceVersion=0"));
        assertThat(browser.findElements(By.cssSelector("svg.timeline a.bar[data-node='bn-0010']")))
            .as("a lane past the first screen, drawn from the whole read")
            .isNotEmpty();
        List<String> errors = new ArrayList<>();
        for (LogEntry e : browser.manage().logs().get(LogType.BROWSER)) {
          if (e.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
            errors.add(e.getMessage());
          }
        }
        assertThat(errors).as("console errors").isEmpty();
      } finally {
        browser.quit();
        ui.destroy();
        ui.waitFor();
      }
    }
  }
}
