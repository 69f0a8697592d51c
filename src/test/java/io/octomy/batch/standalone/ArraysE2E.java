package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * spec.array on standalone through stock kubectl and the plugin: an array of 5 with maxRunning 2
 * never has more than 2 items unfinished (watched through kubectl and by the items' own start and
 * end marks), every item sees its own index, the array succeeds, a job after it starts only once
 * every item ended, and deleting the array deletes its items. Bad arrays are refused at apply time.
 */
class ArraysE2E {

  @TempDir Path dir;

  private static final String ARRAY =
      """
      apiVersion: batch.octomy.io/v1alpha1
      kind: BatchJob
      metadata: {name: %s}
      spec:
        %s
        resources:
          requests: {octomy.io/cpu-milli: 500}
        template:
          spec:
            containers: [{name: main, image: unused, command: [sh, -c, '%s']}]
      """;

  private static String status(Kubectl k, String job, String field) {
    return k.run("get", "bj", job, "-o", "jsonpath={.status." + field + "}").out();
  }

  /** The items of {@code array} that exist and have not finished, as kubectl lists them. */
  private static int unfinished(Kubectl k, String array) {
    String phases =
        k.run(
                "get",
                "bj",
                "-l",
                "batch.octomy.io/array=" + array,
                "-o",
                "jsonpath={range .items[*]}{.status.phase}{\"\\n\"}{end}")
            .out();
    return (int) phases.lines().filter(p -> !p.equals("Succeeded") && !p.equals("Failed")).count();
  }

  @Test
  void anArrayRunsItsItemsAtMostTwoAtOnceThenItsDependantAndGoesWithItsItems() throws Exception {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    Path marks = Files.createDirectories(dir.resolve("marks"));
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "ar",
            "--capacity",
            "octomy.io/cpu-milli=8000")) {
      Kubectl k =
          new Kubectl(
              Kubectl.versions().get(0), sa.kubeconfig, Files.createDirectories(dir.resolve("h")));

      for (String bad :
          new String[] {
            "array: {count: 0}",
            "array: {count: 10001}",
            "array: {count: five}",
            "array: {count: 3, maxRunning: 0}",
            "array: {maxRunning: 2}"
          }) {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, ARRAY.formatted("bad", bad, "true"));
        Kubectl.Result refused = k.run("apply", "-f", file.toString());
        assertThat(refused.exitCode()).as(bad + ": " + refused.all()).isNotZero();
        assertThat(refused.err()).as(bad).contains("spec.array");
      }

      // Each item marks its start and end; its output names its index twice: from the
      // $(OCTOMY_ARRAY_INDEX) reference, replaced before the shell runs, and from the environment.
      String item =
          "date +%s%N > "
              + marks
              + "/start-$(OCTOMY_ARRAY_INDEX); sleep 1; echo item $(OCTOMY_ARRAY_INDEX)"
              + " env $OCTOMY_ARRAY_INDEX; date +%s%N > "
              + marks
              + "/end-$(OCTOMY_ARRAY_INDEX)";
      String report = "date +%s%N > " + marks + "/report";
      Path file = dir.resolve("sweep.yaml");
      Files.writeString(
          file,
          ARRAY.formatted("sweep", "array: {count: 5, maxRunning: 2}", item)
              + "---\n"
              + ARRAY.formatted("report", "after: [sweep]", report));
      Kubectl.Result applied = k.run("apply", "-f", file.toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();

      AtomicInteger most = new AtomicInteger();
      Eventually.until(
          Duration.ofSeconds(90),
          "sweep to succeed",
          () -> {
            most.accumulateAndGet(unfinished(k, "sweep"), Math::max);
            return status(k, "sweep", "phase").equals("Succeeded");
          });
      assertThat(most.get()).as("unfinished items seen at once").isBetween(1, 2);
      assertThat(status(k, "sweep", "array.items")).isEqualTo("5/5");
      assertThat(status(k, "sweep", "node")).as("the array job runs nothing itself").isEmpty();
      String wide = k.run("get", "bj", "sweep", "-o", "wide").out();
      assertThat(wide.lines().toList().get(0)).contains("ITEMS");
      assertThat(wide.lines().toList().get(1)).contains("Succeeded").contains("5/5");

      List<long[]> spans = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        spans.add(
            new long[] {
              Long.parseLong(Files.readString(marks.resolve("start-" + i)).trim()),
              Long.parseLong(Files.readString(marks.resolve("end-" + i)).trim())
            });
      }
      for (long[] span : spans) {
        long overlapping = spans.stream().filter(o -> o[0] <= span[0] && span[0] < o[1]).count();
        assertThat(overlapping).as("items running when one started").isLessThanOrEqualTo(2);
      }

      Path plugin = Path.of("target", "kubectl-octomy").toAbsolutePath();
      assertThat(plugin).as("the build places the plugin at target/kubectl-octomy").isExecutable();
      Path bin = Files.createDirectories(dir.resolve("bin"));
      Files.copy(plugin, bin.resolve("kubectl-octomy"));
      bin.resolve("kubectl-octomy").toFile().setExecutable(true);
      Kubectl octomy = k.withPluginsFrom(bin);
      for (int i = 0; i < 5; i++) {
        Kubectl.Result logs = octomy.run(60, "octomy", "logs", "sweep-" + i);
        assertThat(logs.exitCode()).as(logs.all()).isZero();
        assertThat(logs.out()).isEqualTo("item " + i + " env " + i + "\n");
      }

      // fit answers an array manifest for its first item, with the whole array's expected end.
      Path more = dir.resolve("more.yaml");
      Files.writeString(more, ARRAY.formatted("more", "array: {count: 4, maxRunning: 2}", "true"));
      Kubectl.Result fit = octomy.run(60, "octomy", "fit", "-f", more.toString());
      assertThat(fit.exitCode()).as(fit.all()).isZero();
      assertThat(fit.out())
          .contains("would be admitted now on node ar")
          .contains(
              "An array of 4 items, at most 2 unfinished at once; what follows is for its first"
                  + " item, more-0. Its last item is expected to end at ");
      assertThat(k.run("get", "bj", "more").exitCode()).as("nothing was created").isNotZero();

      Eventually.until(
          Duration.ofSeconds(30),
          "report to run",
          () -> Files.exists(marks.resolve("report")) && !status(k, "report", "phase").isEmpty());
      long reportStart = Long.parseLong(Files.readString(marks.resolve("report")).trim());
      assertThat(spans).allSatisfy(s -> assertThat(s[1]).isLessThan(reportStart));

      Kubectl.Result deleted = k.run("delete", "bj", "sweep");
      assertThat(deleted.exitCode()).as(deleted.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "the items to go with their array",
          () ->
              k.run("get", "bj", "-l", "batch.octomy.io/array=sweep", "-o", "name")
                  .out()
                  .isBlank());
      assertThat(k.run("get", "bj", "-o", "name").out().trim())
          .isEqualTo("batchjob.batch.octomy.io/report");
    }
  }
}
