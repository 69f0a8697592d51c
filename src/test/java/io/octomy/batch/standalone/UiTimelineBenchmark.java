package io.octomy.batch.standalone;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.UiAddress;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chromium.ChromiumDriver;

/**
 * The queue timeline at size, measured in headless Chromium: standalone with N agentless nodes full
 * of admitted jobs and Q queued jobs behind them, {@code kubectl octomy ui} as a process, and the
 * page opened on every namespace. A script the browser runs before the page's own (a
 * MutationObserver) timestamps the first bar drawn on the axis, after the frame it is painted in
 * (first useful paint, from the navigation's start), with what the page said then (an older pass's
 * forecast is said to be one), the first waiting bar (the forecast's jobs drawn), and the first
 * appearance of each probe job; the first load is the first after the start, the world filled
 * meanwhile with nobody reading; an update is a job created while the page is open: the page
 * showing it, less the moment its decision was seen in the API (a watch of the job in this JVM, on
 * the same clock).
 *
 * <pre>
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) \
 *     io.octomy.batch.standalone.UiTimelineBenchmark [--nodes 1000 --queued 10000 --loads 5 --updates 10]
 * </pre>
 */
public final class UiTimelineBenchmark {

  static final long PAINT_TARGET_MS = 1000;
  static final long UPDATE_TARGET_MS = 200;

  // Runs before the page's scripts on every new document.
  private static final String PROBE =
      """
      window.__bench = { paint: 0, waiting: 0, said: '', running: {} };
      const afterPaint = (f) => requestAnimationFrame(() => requestAnimationFrame(f));
      new MutationObserver(() => {
        const b = window.__bench;
        if (b.paint === 0 && document.querySelector('main svg.timeline a.bar')) {
          b.paint = -1;
          b.said = [...document.querySelectorAll('main p')].map((p) => p.textContent)
            .find((t) => t.includes('Hover a bar')) || '';
          afterPaint(() => { b.paint = performance.now(); });
        }
        if (b.waiting === 0 && document.querySelector('main svg.timeline a.bar.waiting')) {
          b.waiting = -1;
          afterPaint(() => { b.waiting = performance.now(); });
        }
        for (const bar of document.querySelectorAll('a.bar.running')) {
          const key = bar.dataset.job;
          if (!(key in b.running)) {
            b.running[key] = -1;
            afterPaint(() => { b.running[key] = Date.now(); });
          }
        }
      }).observe(document, { childList: true, subtree: true });
      """;

  private UiTimelineBenchmark() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = options(argv);
    int nodes = Integer.parseInt(a.getOrDefault("nodes", "1000"));
    int queued = Integer.parseInt(a.getOrDefault("queued", "10000"));
    int loads = Integer.parseInt(a.getOrDefault("loads", "5"));
    int updates = Integer.parseInt(a.getOrDefault("updates", "10"));
    Path dir = Files.createTempDirectory("ui-bench");
    if (Kubectl.versions().isEmpty()) {
      throw new IllegalStateException("needs kubectl: run mvn -B -q package -DskipTests first");
    }
    Path bin = UiBenchWorld.pluginFolder(dir);
    print("load_average_start", loadAverage());
    // the local node with an agent is one of the N; the rest have none
    try (StandaloneProcess sa = UiBenchWorld.standalone(dir);
        KubernetesClient client = UiBenchWorld.clientOf(sa);
        UiBenchWorld world = new UiBenchWorld(client)) {
      long t0 = System.nanoTime();
      world.namespaces();
      world.nodes(nodes - 1);
      int slots = nodes * (int) (UiBenchWorld.NODE_CPU / UiBenchWorld.JOB_CPU);
      world.jobs("run", slots);
      world.jobs("wait", queued);
      awaitDecided(client, slots, queued);
      print("world_filled_s", (System.nanoTime() - t0) / 1e9);
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
        List<Double> paints = new ArrayList<>();
        for (int i = 0; i < loads; i++) {
          browser.get("about:blank");
          browser.get(url);
          paints.add(awaitNumber(browser, "return window.__bench.paint", Duration.ofSeconds(120)));
          print("load_" + i + "_first_useful_paint_ms", paints.get(i));
          print("load_" + i + "_said_at_paint", script(browser, "return window.__bench.said"));
          print(
              "load_" + i + "_first_waiting_bar_ms",
              awaitNumber(browser, "return window.__bench.waiting", Duration.ofSeconds(120)));
          print("load_" + i + "_api_kib_ttfb_ms_read_ms_done_at_ms", apiReads(browser));
        }
        List<Double> lags = updates(client, browser, updates);
        // load 0 is the first after the start: the controller has decided since, but nobody read
        print(
            "first_load_after_start_paint_ms",
            paints.get(0) + "  (target <= " + PAINT_TARGET_MS + ")");
        print(
            "first_useful_paint_ms_median",
            median(paints) + "  (target <= " + PAINT_TARGET_MS + ")");
        print("update_ms_median", median(lags) + "  (target <= " + UPDATE_TARGET_MS + ")");
        print("update_ms_max", lags.stream().mapToDouble(d -> d).max().orElse(0));
        print("load_average_end", loadAverage());
      } finally {
        browser.quit();
        ui.destroy();
        ui.waitFor();
      }
    }
  }

  /**
   * Grows the first agentless node by one job's room at a time, at a random moment of the page's
   * poll; the controller admits a waiting job there, and each lag is that job's running bar on the
   * page less its admission seen in the API.
   */
  private static List<Double> updates(KubernetesClient client, WebDriver browser, int count)
      throws Exception {
    Random random = new Random(7);
    List<Double> lags = new ArrayList<>();
    String node = UiBenchWorld.nodeName(0);
    for (int i = 0; i < count; i++) {
      Thread.sleep(500 + random.nextInt(2000));
      Set<String> before = ConcurrentHashMap.newKeySet();
      client
          .resources(BatchJob.class)
          .inAnyNamespace()
          .withField("status.node", node)
          .list()
          .getItems()
          .forEach(
              j -> before.add(j.getMetadata().getNamespace() + "/" + j.getMetadata().getName()));
      CompletableFuture<String> admitted = new CompletableFuture<>();
      CompletableFuture<Long> seenAt = new CompletableFuture<>();
      try (Watch w =
          client
              .resources(BatchJob.class)
              .inAnyNamespace()
              .withField("status.node", node)
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, BatchJob j) {
                      String key = j.getMetadata().getNamespace() + "/" + j.getMetadata().getName();
                      if (admitted.isDone() || before.contains(key) || !admittedNow(j)) {
                        return;
                      }
                      seenAt.complete(System.currentTimeMillis());
                      admitted.complete(key);
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  })) {
        client
            .resources(BatchJob.class)
            .inAnyNamespace()
            .withField("status.node", node)
            .list()
            .getItems()
            .forEach(
                j -> before.add(j.getMetadata().getNamespace() + "/" + j.getMetadata().getName()));
        new UiBenchWorld(client).grow(node, UiBenchWorld.JOB_CPU);
        String key = admitted.get(60, TimeUnit.SECONDS);
        long seenInApi = seenAt.get();
        double shown =
            awaitNumber(
                browser,
                "return window.__bench.running[arguments[0]] || 0",
                Duration.ofSeconds(60),
                key);
        lags.add(shown - seenInApi);
        print("update_" + i + "_ms", shown - seenInApi);
      }
    }
    return lags;
  }

  /** A job entering the node's selection arrives as ADDED or MODIFIED; either counts. */
  private static boolean admittedNow(BatchJob j) {
    return j.getStatus() != null
        && (j.getStatus().getPhase() == JobPhase.Admitted
            || j.getStatus().getPhase() == JobPhase.Running);
  }

  private static void awaitDecided(KubernetesClient client, int admitted, int queued)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (System.nanoTime() < deadline) {
      int a = 0;
      int q = 0;
      for (BatchJob j : client.resources(BatchJob.class).inAnyNamespace().list().getItems()) {
        if (j.getStatus() == null || j.getStatus().getReason() == null) {
          continue;
        }
        if (j.getStatus().getPhase() == JobPhase.Queued) {
          q++;
        } else {
          a++;
        }
      }
      // a node marked silent under load sends its jobs back to the queue: every job decided is
      // what counts, and the split is printed
      if (a + q >= admitted + queued) {
        print("world", "admitted " + a + ", queued " + q);
        return;
      }
      System.err.println("decided so far: admitted " + a + ", queued " + q);
      Thread.sleep(2000);
    }
    throw new IllegalStateException("the jobs were not all decided within 10 minutes");
  }

  /**
   * The page's first read of each API path in this document: KiB, the server's time to the first
   * byte and the whole read, in ms; what the page spent after its reads is the paint less those.
   */
  private static Object apiReads(WebDriver browser) {
    return ((JavascriptExecutor) browser)
        .executeScript(
            "const m = {}; for (const e of performance.getEntriesByType('resource')) {"
                + " if (!e.name.includes('/api') || e.name.includes('watch=')) continue;"
                + " const k = new URL(e.name).pathname.split('/').pop();"
                + " if (!m[k]) m[k] = [Math.round(e.encodedBodySize / 1024),"
                + " Math.round(e.responseStart - e.requestStart), Math.round(e.duration),"
                + " Math.round(e.responseEnd)]; }"
                + " return JSON.stringify(m);");
  }

  private static Object script(WebDriver browser, String script) {
    return ((JavascriptExecutor) browser).executeScript(script);
  }

  private static double awaitNumber(
      WebDriver browser, String script, Duration timeout, Object... args)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Object v = ((JavascriptExecutor) browser).executeScript(script, args);
      if (v instanceof Number n && n.doubleValue() > 0) {
        return n.doubleValue();
      }
      Thread.sleep(5);
    }
    Object shown =
        ((JavascriptExecutor) browser)
            .executeScript("return document.getElementById('view').innerText.slice(0, 400)");
    throw new IllegalStateException(
        "the page did not answer " + script + " within " + timeout + "; it shows: " + shown);
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String loadAverage() throws Exception {
    return Files.readString(Path.of("/proc/loadavg")).strip();
  }

  private static Map<String, String> options(String[] argv) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      if (!argv[i].startsWith("--")) {
        throw new IllegalArgumentException(
            argv[i] + ": options are --nodes N --queued N --loads N --updates N");
      }
      out.put(argv[i].substring(2), argv[i + 1]);
    }
    return out;
  }

  private static void print(String name, Object value) {
    System.out.println(name + " " + value);
  }
}
