package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.octomy.batch.apiserver.Kubectl;
import io.octomy.batch.fixtures.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The visibility API of standalone mode through stock kubectl: {@code get --raw} on its paths,
 * {@code create --raw} for a fit review, {@code get} with its Table, discovery, and the output of a
 * Process job. Nothing it answers is written: the waiting jobs' resourceVersions do not move.
 */
class VisibilityE2E {

  static final String GV = "/apis/visibility.batch.octomy.io/v1alpha1";

  @TempDir Path dir;

  private Path home;
  private final ObjectMapper json = new ObjectMapper();

  @BeforeEach
  void home() throws IOException {
    assertThat(Kubectl.versions()).as("kubectl on this machine").isNotEmpty();
    home = Files.createDirectories(dir.resolve("home"));
  }

  static String job(String name, long cpu, String extraSpec, String command) {
    return """
        apiVersion: batch.octomy.io/v1alpha1
        kind: BatchJob
        metadata: {name: %s}
        spec:
          %s
          resources:
            requests: {octomy.io/cpu-milli: %d}
            limits: {octomy.io/cpu-milli: %d}
          template:
            spec:
              containers:
              - name: main
                image: unused
                command: [sh, -c, '%s']
        """
        .formatted(name, extraSpec.isEmpty() ? "type: solve" : extraSpec, cpu, cpu, command);
  }

  private Path write(String name, String text) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }

  private JsonNode raw(Kubectl k, String path) throws IOException {
    Kubectl.Result r = k.run("get", "--raw", path);
    assertThat(r.exitCode()).as("get --raw %s: %s", path, r.all()).isZero();
    return json.readTree(r.out());
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.path("items").forEach(i -> names.add(i.path("metadata").path("name").asText()));
    return names;
  }

  @Test
  void queueWhyFitAndLogsThroughKubectl() throws Exception {
    try (StandaloneProcess sa =
        StandaloneProcess.start(
            dir.resolve("state"),
            dir.resolve("standalone.log"),
            "--node",
            "vis",
            "--capacity",
            "octomy.io/cpu-milli=4000",
            "--capacity",
            "octomy.io/memory-bytes=8000000000")) {
      Kubectl k = new Kubectl(Kubectl.versions().get(0), sa.kubeconfig, home);
      String holder =
          job("holder", 3000, "locks: [subject/ernie]", "echo hello from holder; sleep 300");
      String big = job("big", 2000, "", "true");
      String locked = job("locked", 500, "locks: [subject/ernie]", "true");
      Kubectl.Result applied = k.run("apply", "-f", write("holder.yaml", holder).toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "holder to run",
          () -> k.run("get", "bj", "holder").out().contains("Running"));
      applied =
          k.run(
              "apply",
              "-f",
              write("big.yaml", big).toString(),
              "-f",
              write("locked.yaml", locked).toString());
      assertThat(applied.exitCode()).as(applied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "big and locked to be decided",
          () -> {
            String out = k.run("get", "bj").out();
            return out.contains("WaitingForCapacity") && out.contains("WaitingForLock");
          });
      String versionsBefore =
          k.run("get", "bj", "big", "locked", "-o", "jsonpath={.items[*].metadata.resourceVersion}")
              .out();

      // Discovery lists the group; kubectl resolves its resources.
      Kubectl.Result resources =
          k.run("api-resources", "--api-group=visibility.batch.octomy.io", "-o", "name");
      assertThat(resources.exitCode()).as(resources.all()).isZero();
      assertThat(resources.out()).contains("pendingjobs.visibility.batch.octomy.io");

      // The queue, in pass order, per namespace and cluster-wide.
      JsonNode queue = raw(k, GV + "/namespaces/default/pendingjobs");
      assertThat(queue.path("kind").asText()).isEqualTo("PendingJobList");
      assertThat(names(queue)).containsExactly("big", "locked");
      JsonNode first = queue.path("items").get(0);
      assertThat(first.path("position").asInt()).isEqualTo(1);
      assertThat(first.path("reason").asText()).isEqualTo("WaitingForCapacity");
      assertThat(first.path("startBasis").asText()).isNotBlank();
      assertThat(names(raw(k, GV + "/pendingjobs"))).containsExactly("big", "locked");

      // Why: every blocker with its remedy.
      JsonNode why = raw(k, GV + "/namespaces/default/pendingjobs/locked");
      assertThat(why.path("blockers").get(0).path("reason").asText()).isEqualTo("WaitingForLock");
      assertThat(why.path("blockers").get(0).path("message").asText()).contains("holder");
      assertThat(why.path("blockers").get(0).path("remedy").asText()).contains("holder");
      JsonNode bigWhy = raw(k, GV + "/namespaces/default/pendingjobs/big");
      assertThat(bigWhy.path("blockers").get(0).path("reason").asText())
          .isEqualTo("WaitingForCapacity");
      assertThat(bigWhy.path("blockers").get(0).path("remedy").asText())
          .contains("It fits on vis now if the request is at most 1000 octomy.io/cpu-milli");
      Kubectl.Result notQueued =
          k.run("get", "--raw", GV + "/namespaces/default/pendingjobs/holder");
      assertThat(notQueued.exitCode()).isNotZero();
      assertThat(notQueued.err()).contains("NotFound").contains("Running");

      // kubectl get renders the server's Table.
      Kubectl.Result table = k.run("get", "pendingjobs.visibility.batch.octomy.io");
      assertThat(table.exitCode()).as(table.all()).isZero();
      assertThat(table.out().lines().findFirst().orElseThrow())
          .containsSubsequence("NAME", "POSITION", "PRIORITY", "CLASS", "REASON", "EXPECTED");
      assertThat(table.out()).containsPattern("big\\s+1\\s+");

      // Fit: what a manifest would get now, nothing created.
      String review =
          """
          {"apiVersion":"visibility.batch.octomy.io/v1alpha1","kind":"FitReview",
           "spec":{"job":{"apiVersion":"batch.octomy.io/v1alpha1","kind":"BatchJob",
             "metadata":{"name":"%s"},
             "spec":{"resources":{"requests":{"octomy.io/cpu-milli":%d}},
                     "template":{"spec":{"containers":[{"name":"m","image":"x"}]}}}}}}
          """;
      Kubectl.Result fits =
          k.run(
              "create",
              "--raw",
              GV + "/namespaces/default/fitreviews",
              "-f",
              write("fit.json", review.formatted("tiny", 500)).toString());
      assertThat(fits.exitCode()).as(fits.all()).isZero();
      JsonNode fitStatus = json.readTree(fits.out()).path("status");
      assertThat(fitStatus.path("admitted").asBoolean()).as(fits.out()).isTrue();
      assertThat(fitStatus.path("node").asText()).isEqualTo("vis");
      Kubectl.Result tooBig =
          k.run(
              "create",
              "--raw",
              GV + "/namespaces/default/fitreviews",
              "-f",
              write("huge.json", review.formatted("huge", 100000)).toString());
      assertThat(tooBig.exitCode()).as(tooBig.all()).isZero();
      JsonNode hugeStatus = json.readTree(tooBig.out()).path("status");
      assertThat(hugeStatus.path("admitted").asBoolean()).isFalse();
      assertThat(hugeStatus.path("reason").asText()).isEqualTo("NoNodeFits");
      assertThat(hugeStatus.path("blockers").get(0).path("remedy").asText()).isNotBlank();
      assertThat(k.run("get", "bj", "tiny").err()).contains("NotFound");

      // A Process job's output, and where describe says it is.
      Eventually.until(
          Duration.ofSeconds(20),
          "holder's output",
          () ->
              k.run("get", "--raw", GV + "/namespaces/default/joblogs/holder")
                  .out()
                  .contains("hello from holder"));
      assertThat(k.run("describe", "bj", "holder").out())
          .contains("output.log")
          .contains("kubectl octomy logs holder");

      // The same through the plugin, as kubectl finds it on the PATH.
      Path plugin = Path.of("target", "kubectl-octomy").toAbsolutePath();
      assertThat(plugin).as("the build places the plugin at target/kubectl-octomy").isExecutable();
      Path bin = Files.createDirectories(dir.resolve("bin"));
      Files.copy(plugin, bin.resolve("kubectl-octomy"));
      bin.resolve("kubectl-octomy").toFile().setExecutable(true);
      Kubectl octomy = k.withPluginsFrom(bin);
      assertThat(octomy.run("plugin", "list").out()).contains("kubectl-octomy");

      Kubectl.Result q = octomy.run(60, "octomy", "queue");
      assertThat(q.exitCode()).as(q.all()).isZero();
      List<String> rows = q.out().lines().toList();
      assertThat(rows.get(0))
          .containsSubsequence("POSITION", "NAME", "PRIORITY", "CLASS", "REASON", "EXPECTED START");
      assertThat(rows.get(1)).matches("1\\s+big\\s+\\d+\\s+Guaranteed\\s+WaitingForCapacity\\s+.+");
      assertThat(rows.get(2)).matches("2\\s+locked\\s+\\d+\\s+Guaranteed\\s+WaitingForLock\\s+.+");
      Kubectl.Result all = octomy.run(60, "octomy", "queue", "-A", "-o", "wide");
      assertThat(all.out().lines().findFirst().orElseThrow())
          .startsWith("NAMESPACE")
          .contains("BASIS");
      JsonNode asJson = json.readTree(octomy.run(60, "octomy", "queue", "-o", "json").out());
      assertThat(names(asJson)).containsExactly("big", "locked");
      assertThat(octomy.run(60, "octomy", "queue", "-o", "yaml").out())
          .contains("kind: PendingJobList");

      Kubectl.Result whyLocked = octomy.run(60, "octomy", "why", "locked");
      assertThat(whyLocked.exitCode()).as(whyLocked.all()).isZero();
      assertThat(whyLocked.out())
          .contains("Reason:          WaitingForLock")
          .contains("1. WaitingForLock: lock subject/ernie is held by holder.")
          .contains("Remedy: ");
      JsonNode bigAgain = json.readTree(octomy.run(60, "octomy", "why", "big", "-o", "json").out());
      assertThat(bigAgain.path("kind").asText()).isEqualTo("PendingJob");
      assertThat(bigAgain.path("blockers")).hasSameSizeAs(bigWhy.path("blockers"));
      assertThat(bigAgain.path("blockers").get(0).path("remedy").asText())
          .contains("fits on vis now if the request is at most 1000 octomy.io/cpu-milli");
      Kubectl.Result whyHolder = octomy.run(60, "octomy", "why", "holder");
      assertThat(whyHolder.exitCode()).isEqualTo(1);
      assertThat(whyHolder.err()).startsWith("Error from server (NotFound): ").contains("Running");

      Path manifest = write("tiny.yaml", job("tiny", 500, "", "true"));
      Kubectl.Result fit = octomy.run(60, "octomy", "fit", "-f", manifest.toString());
      assertThat(fit.exitCode()).as(fit.all()).isZero();
      assertThat(fit.out())
          .startsWith("batchjob tiny would be admitted now on node vis (nothing was created).");
      Kubectl.Result fitHuge =
          octomy.run(
              60,
              "octomy",
              "fit",
              "-f",
              write("huge.yaml", job("huge", 100000, "", "true")).toString());
      assertThat(fitHuge.out()).contains("NoNodeFits").contains("Remedy: ");
      Kubectl.Result notAManifest =
          octomy.run(60, "octomy", "fit", "-f", write("cm.yaml", "kind: ConfigMap\n").toString());
      assertThat(notAManifest.exitCode()).isEqualTo(1);
      assertThat(notAManifest.err()).contains("must hold one BatchJob manifest");
      assertThat(k.run("get", "bj", "tiny").err()).contains("NotFound");

      Kubectl.Result logs = octomy.run(60, "octomy", "logs", "holder");
      assertThat(logs.exitCode()).as(logs.all()).isZero();
      assertThat(logs.out()).isEqualTo("hello from holder\n");
      Kubectl.Result firstBytes = octomy.run(60, "octomy", "logs", "holder", "--limit-bytes", "5");
      assertThat(firstBytes.out()).as("the first bytes, as kubectl logs").isEqualTo("hello");
      Kubectl.Result logsOfWaiting = octomy.run(60, "octomy", "logs", "big");
      assertThat(logsOfWaiting.exitCode()).isEqualTo(1);
      assertThat(logsOfWaiting.err()).contains("has not started yet");

      // Read-only: the waiting jobs were not written while they were looked at.
      String versionsAfter =
          k.run("get", "bj", "big", "locked", "-o", "jsonpath={.items[*].metadata.resourceVersion}")
              .out();
      assertThat(versionsAfter).isEqualTo(versionsBefore);

      // One BatchQueue's jobs: a queue over namespace default lists them; an unknown queue is
      // named in a sentence.
      Path bq =
          write(
              "bq.yaml",
              "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchQueue\nmetadata: {name: studio}\n"
                  + "spec: {namespaces: [default]}\n");
      Kubectl.Result queueApplied = k.run("apply", "-f", bq.toString());
      assertThat(queueApplied.exitCode()).as(queueApplied.all()).isZero();
      Eventually.until(
          Duration.ofSeconds(30),
          "the queue studio to be seen by a pass",
          () -> octomy.run(60, "octomy", "queue", "--queue", "studio").exitCode() == 0);
      JsonNode ofQueue =
          json.readTree(octomy.run(60, "octomy", "queue", "--queue", "studio", "-o", "json").out());
      assertThat(names(ofQueue)).containsExactly("big", "locked");
      Kubectl.Result unknownQueue = octomy.run(60, "octomy", "queue", "--queue", "nope");
      assertThat(unknownQueue.exitCode()).isEqualTo(1);
      assertThat(unknownQueue.err())
          .contains(
              "there is no BatchQueue named nope; kubectl get bq lists the queues there are.");
      Kubectl.Result delete = k.run("delete", "--raw", GV + "/namespaces/default/pendingjobs/big");
      assertThat(delete.exitCode()).isNotZero();
      assertThat(k.run("delete", "bj", "holder", "--wait=false").exitCode()).isZero();
    }
  }
}
