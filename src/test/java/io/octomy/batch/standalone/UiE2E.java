package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import io.octomy.batch.fixtures.UiAddress;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * kubectl octomy ui as a user meets it: standalone started, the examples applied, {@code kubectl
 * octomy ui} run as a process, each view opened in a real (headless) Chromium through Selenium and
 * checked against what kubectl says: the waiting job sits on the timeline at its expected start,
 * the node's offer equals {@code kubectl get bn -o wide}, the job view shows the reason's sentence,
 * the teams and job types are there. Each view's screenshot is saved under target/ui-screenshots,
 * and any browser console error fails the test.
 */
class UiE2E {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

  @TempDir Path dir;

  private final ObjectMapper json = new ObjectMapper();

  static String job(String name, long cpu, String command) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          resources:
            requests: {octomy.io/cpu-milli: %d}
            limits: {octomy.io/cpu-milli: %d}
          template:
            spec:
              containers: [{name: main, image: unused, command: [sh, -c, '%s']}]
        """
        .formatted(name, cpu, cpu, command);
  }

  @Test
  void everyViewShowsWhatKubectlSays() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    assertThat(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER))
        .as(
            "the browser tests need Debian's chromium and chromium-driver (%s, %s): apt-get install"
                + " -y chromium chromium-driver (.ci/run installs them)",
            CHROMIUM, CHROMEDRIVER)
        .isTrue();
    Path plugin = Path.of("target", "kubectl-octomy").toAbsolutePath();
    assertThat(plugin).as("the build places the plugin at target/kubectl-octomy").isExecutable();
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Files.copy(plugin, bin.resolve("kubectl-octomy"));
    bin.resolve("kubectl-octomy").toFile().setExecutable(true);
    Files.createDirectories(SCREENSHOTS);

    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "ui-node",
            "--capacity",
            "octomy.io/cpu-milli=4000",
            "--capacity",
            "octomy.io/memory-bytes=8000000000")) {
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));
      apply(k, write("holder.yaml", job("holder", 3000, "sleep 300")));
      Eventually.until(
          Duration.ofSeconds(30),
          "holder to run",
          () -> status(k, "holder", "phase").equals("Running"));
      Path examples = Path.of("examples").toAbsolutePath();
      apply(
          k,
          write("waiter.yaml", job("waiter", 2000, "true")),
          examples.resolve("job-burstable.yaml"),
          examples.resolve("job-besteffort.yaml"),
          examples.resolve("pipeline.yaml"),
          examples.resolve("queues/two-teams.yaml"));
      Kubectl.Result created = k.run("create", "namespace", "team-a");
      assertThat(created.exitCode()).as(created.all()).isZero();
      Kubectl.Result lab =
          k.run(
              "apply",
              "-n",
              "team-a",
              "-f",
              write("lab.yaml", job("lab-job", 2000, "sleep 60")).toString());
      assertThat(lab.exitCode()).as(lab.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "waiter to wait for capacity",
          () -> status(k, "waiter", "reason").equals("WaitingForCapacity"));
      Eventually.until(
          Duration.ofSeconds(60),
          "mesh-export-12 to finish and be folded into its profile",
          () ->
              !k.run("get", "bjp", "mesh-export", "-o", "jsonpath={.status.runs}").out().isEmpty());

      Path uiLog = dir.resolve("ui.log");
      Process ui = k.withPluginsFrom(bin).startTo(uiLog, "octomy", "ui");
      try {
        String url = UiAddress.awaitPrinted(ui, uiLog);
        assertThat(url).startsWith("http://127.0.0.1:");
        WebDriver browser = browser();
        try {
          timeline(k, browser, url);
          job(k, browser, url);
          nodes(k, browser, url);
          teams(k, browser, url);
          drift(k, browser, url);
        } finally {
          browser.quit();
        }
      } finally {
        ui.destroy();
        ui.waitFor();
      }
    }
  }

  private void timeline(Kubectl k, WebDriver browser, String url) throws Exception {
    browser.get(url + "#/timeline?ns=default");
    String waiter = "a.bar.waiting[data-job='default/waiter']";
    await(browser, waiter);
    // the forecast moves as the examples run: compare one read of each until they agree
    Eventually.until(
        Duration.ofSeconds(20),
        "the waiting job at its expected start, on its expected node, with its reason",
        () -> {
          JsonNode pending =
              parse(
                  k.run(
                          "get",
                          "--raw",
                          "/apis/visibility.batch.octomy.io/v1alpha1/namespaces/default/pendingjobs/waiter")
                      .out());
          Instant expected = Instant.parse(pending.path("expectedStart").asText());
          assertThat(Instant.parse(attribute(browser, waiter, "data-from")))
              .isBetween(expected.minusSeconds(1), expected.plusSeconds(1));
          assertThat(attribute(browser, waiter, "data-node"))
              .isEqualTo(pending.path("expectedNode").asText());
          assertThat(
                  fresh(
                      () ->
                          browser
                              .findElement(By.cssSelector(waiter + " title"))
                              .getAttribute("textContent")))
              .contains("WaitingForCapacity")
              .contains(pending.path("message").asText());
          return true;
        });
    assertThat(attribute(browser, waiter, "class")).contains("Guaranteed");
    String holder = "a.bar.running[data-job='default/holder']";
    await(browser, holder);
    assertThat(attribute(browser, holder, "data-node")).isEqualTo("ui-node");
    assertThat(text(browser, "table.queue-table")).contains("waiter").contains("holder");
    screenshot(browser, "timeline");
    followsADecisionWithoutARead(k, browser);
    noConsoleErrors(browser, "timeline");
    fresh(
        () -> {
          browser.findElement(By.cssSelector(waiter)).click();
          return true;
        });
    Eventually.until(
        Duration.ofSeconds(10),
        "a click on the bar to open the job",
        () -> browser.getCurrentUrl().endsWith("#/job/default/waiter"));

    browser.get(url + "#/timeline?queue=team-a");
    await(browser, "a.bar[data-job='team-a/lab-job']");
    assertThat(text(browser, "main p:not(.legend)")).startsWith("Queue team-a: namespaces team-a.");
    assertThat(browser.findElements(By.cssSelector("a.bar[data-job='default/waiter']")))
        .as("the queue filter leaves out namespace default")
        .isEmpty();
    noConsoleErrors(browser, "timeline of a queue");
  }

  /**
   * A job decided while the timeline is open is drawn from the jobs' watch, before any list read
   * that started after it. A poll may still land in between, so it is tried a few times; drawn only
   * at polls, it would never be.
   */
  private void followsADecisionWithoutARead(Kubectl k, WebDriver browser) throws Exception {
    JavascriptExecutor js = (JavascriptExecutor) browser;
    List<Long> reads = new ArrayList<>();
    for (int attempt = 0; attempt < 4; attempt++) {
      String bar = "a.bar[data-job='default/followed-" + attempt + "']";
      js.executeScript(
          "performance.clearResourceTimings(); window.__shownAt = 0; const bar = arguments[0];"
              + " new MutationObserver((m, o) => { if (document.querySelector(bar)) {"
              + " window.__shownAt = performance.now(); o.disconnect(); } })"
              + ".observe(document.getElementById('view'), { childList: true, subtree: true });",
          bar);
      double before = ((Number) js.executeScript("return performance.now()")).doubleValue();
      apply(k, write("followed.yaml", job("followed-" + attempt, 100, "sleep 60")));
      Eventually.until(
          Duration.ofSeconds(20),
          bar + " drawn",
          () -> ((Number) js.executeScript("return window.__shownAt")).doubleValue() > 0);
      long between =
          ((Number)
                  js.executeScript(
                      "return performance.getEntriesByType('resource').filter((e) => {"
                          + " const u = new URL(e.name); return !u.searchParams.has('watch')"
                          + " && /\\/(batchjobs|pendingjobs)$/.test(u.pathname)"
                          + " && e.startTime >= arguments[0] && e.responseEnd <= window.__shownAt;"
                          + " }).length",
                      before))
              .longValue();
      reads.add(between);
      if (between == 0) {
        return;
      }
    }
    assertThat(reads).as("list reads between each decision and its bar").contains(0L);
  }

  private void job(Kubectl k, WebDriver browser, String url) throws Exception {
    browser.get(url + "#/job/default/waiter");
    await(browser, "[data-job='default/waiter'] [data-field='message']");
    Eventually.until(
        Duration.ofSeconds(20),
        "the job view to show kubectl's reason and message",
        () ->
            text(browser, "[data-field='reason']").equals(status(k, "waiter", "reason"))
                && text(browser, "[data-field='message']").equals(status(k, "waiter", "message")));
    assertThat(text(browser, "[data-field='phase']")).isEqualTo("Queued");
    assertThat(text(browser, "[data-field='class']")).isEqualTo("Guaranteed");
    assertThat(text(browser, "table.declared")).contains("octomy.io/cpu-milli 2000 2000");
    assertThat(text(browser, "table.blockers")).contains("WaitingForCapacity");
    screenshot(browser, "job");
    noConsoleErrors(browser, "job");
  }

  private void nodes(Kubectl k, WebDriver browser, String url) throws Exception {
    browser.get(url + "#/nodes");
    await(browser, "section.node[data-node='ui-node'] table.resources");
    Eventually.until(
        Duration.ofSeconds(20),
        "the node's offer and allocated cells to equal kubectl get bn -o wide",
        () -> {
          String row = k.run("get", "bn", "ui-node", "-o", "wide", "--no-headers").out();
          List<JsonNode> maps = new ArrayList<>();
          Matcher m = Pattern.compile("\\{[^}]*\\}").matcher(row);
          while (m.find()) {
            maps.add(parse(m.group()));
          }
          assertThat(maps).as("OFFER and ALLOCATED in %s", row).hasSize(2);
          assertThat(maps.get(0).size()).isPositive();
          cellsEqual(browser, maps.get(0), "offer-others");
          cellsEqual(browser, maps.get(1), "allocated");
          return true;
        });
    assertThat(
            browser.findElements(
                By.cssSelector(
                    "section.node[data-node='ui-node'] rect[data-kind='offer'][data-resource='octomy.io/cpu-milli']")))
        .as("the offer's bar")
        .hasSize(1);
    assertThat(text(browser, "section.node[data-node='ui-node'] dl"))
        .contains("Ready")
        .contains("True");
    screenshot(browser, "nodes");
    noConsoleErrors(browser, "nodes");
  }

  private void cellsEqual(WebDriver browser, JsonNode map, String column) {
    for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String cell =
          text(
              browser,
              "section.node[data-node='ui-node'] td[data-col='"
                  + column
                  + "'][data-resource='"
                  + e.getKey()
                  + "']");
      assertThat(cell).as(column + " " + e.getKey()).isEqualTo(e.getValue().asText());
    }
  }

  private void teams(Kubectl k, WebDriver browser, String url) throws Exception {
    browser.get(url + "#/teams");
    await(browser, "section.queue[data-queue='team-a']");
    assertThat(browser.findElements(By.cssSelector("section.queue"))).hasSize(2);
    Eventually.until(
        Duration.ofSeconds(20),
        "team-a's weight and share to be kubectl's",
        () -> {
          String share = k.run("get", "bq", "team-a", "-o", "jsonpath={.status.share}").out();
          String weight = k.run("get", "bq", "team-a", "-o", "jsonpath={.spec.weight}").out();
          return !share.isEmpty()
              && text(browser, "section.queue[data-queue='team-a'] table tbody tr")
                  .startsWith(weight + " " + share + " ");
        });
    assertThat(text(browser, "section.queue[data-queue='team-a']"))
        .containsPattern("octomy.io/cpu-milli 0\\s+2000");
    Eventually.until(
        Duration.ofSeconds(20),
        "team-a's fair-share term, in its table and last in its plot, to be its status field",
        () -> {
          String term =
              k.run("get", "bq", "team-a", "-o", "jsonpath={.status.fairShareTerm}").out();
          String team = "section.queue[data-queue='team-a'] ";
          return !term.isEmpty()
              && !browser.findElements(By.cssSelector(team + "circle.termpoint")).isEmpty()
              && text(browser, team + "td.term").equals(term)
              && term.equals(
                  attribute(browser, team + "circle.termpoint:last-of-type", "data-term"))
              && text(browser, team + ".term-history tbody tr:last-child td").equals(term);
        });
    screenshot(browser, "teams");
    noConsoleErrors(browser, "teams");
  }

  private void drift(Kubectl k, WebDriver browser, String url) throws Exception {
    JsonNode profile = json.readTree(k.run("get", "bjp", "mesh-export", "-o", "json").out());
    JsonNode cpu = profile.path("status").path("resources").path("octomy.io/cpu-milli");
    browser.get(url + "#/drift");
    await(browser, "section.profile[data-profile='default/mesh-export']");
    List<String> samples = new ArrayList<>();
    cpu.path("samples").forEach(v -> samples.add(v.asText()));
    List<String> memory = new ArrayList<>();
    profile
        .path("status")
        .path("resources")
        .path("octomy.io/memory-bytes")
        .path("samples")
        .forEach(v -> memory.add(v.asText()));
    List<String> plotted =
        fresh(
            () ->
                browser
                    .findElements(
                        By.cssSelector(
                            "section.profile[data-profile='default/mesh-export'] circle[data-sample]"))
                    .stream()
                    .map(p -> p.getAttribute("data-sample"))
                    .toList());
    List<String> recorded = new ArrayList<>(samples);
    recorded.addAll(memory);
    assertThat(plotted)
        .as("the plot's points are the profile's runs")
        .containsExactlyInAnyOrderElementsOf(recorded);
    assertThat(samples).isNotEmpty();
    screenshot(browser, "drift");
    noConsoleErrors(browser, "drift");
  }

  static WebDriver browser() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1300,1000",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions");
    options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    return new ChromeDriver(service, options);
  }

  private static void noConsoleErrors(WebDriver browser, String view) {
    List<String> errors = new ArrayList<>();
    for (LogEntry e : browser.manage().logs().get(LogType.BROWSER)) {
      if (e.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
        errors.add(e.getMessage());
      }
    }
    assertThat(errors).as("console errors on the %s view", view).isEmpty();
  }

  private static void await(WebDriver browser, String css) {
    Eventually.until(
        Duration.ofSeconds(20),
        css + " on the page",
        () -> !browser.findElements(By.cssSelector(css)).isEmpty());
  }

  /** An element's text; the page rebuilds its view on every poll, so a stale find is retried. */
  private static String text(WebDriver browser, String css) {
    return fresh(() -> browser.findElement(By.cssSelector(css)).getText().strip());
  }

  private static String attribute(WebDriver browser, String css, String name) {
    return fresh(() -> browser.findElement(By.cssSelector(css)).getAttribute(name));
  }

  private static <T> T fresh(Supplier<T> read) {
    for (int i = 0; ; i++) {
      try {
        return read.get();
      } catch (StaleElementReferenceException e) {
        if (i == 20) {
          throw e;
        }
      }
    }
  }

  private static void screenshot(WebDriver browser, String view) throws IOException {
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(
        shot.toPath(), SCREENSHOTS.resolve(view + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  private JsonNode parse(String text) {
    try {
      return json.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  private static void apply(Kubectl k, Path... files) {
    List<String> args = new ArrayList<>(List.of("apply"));
    for (Path f : files) {
      args.add("-f");
      args.add(f.toString());
    }
    Kubectl.Result r = k.run(args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.all()).isZero();
  }

  private static String status(Kubectl k, String job, String field) {
    return k.run("get", "bj", job, "-o", "jsonpath={.status." + field + "}").out();
  }
}
