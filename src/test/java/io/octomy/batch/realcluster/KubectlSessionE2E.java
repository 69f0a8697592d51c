package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kubectl conformance session run against standalone mode's embedded API server and against the
 * real kube-apiserver (the same CRDs on both), once with the newest and once with the oldest
 * kubectl on the machine. Every step's normalised output must be the same on both, or differ
 * exactly as {@code docs/conformance.md} lists under "Differences that stay": a new difference
 * fails, and so does a listed one that is gone or has changed.
 *
 * <p>The product's controller runs on neither server: statuses are written by the session itself
 * through the status subresource, so that what kubectl prints does not race a decision. The
 * controller's behaviour on both servers is covered by ClusterModeE2E and the standalone tier.
 *
 * <p>Transcripts and paste-ready entries for the document: {@code target/conformance/}.
 */
class KubectlSessionE2E {

  private static final Path REPORTS = Path.of("target", "conformance");

  private static RealCluster real;
  private static EmbeddedApiServer standalone;

  /** The standalone server's state and each session's files, removed after the class. */
  @TempDir static Path scratch;

  @BeforeAll
  static void servers() throws IOException {
    // With the chart installed whatever ran before: its bindings are part of what the real server
    // answers (auth can-i --list names the BatchQueue reading every user is granted).
    real = ProductDeployment.get().cluster();
    real.requireCrds();
    standalone =
        EmbeddedApiServer.start(scratch.resolve("state"), 0, StandaloneRuntime.productCrds());
  }

  @AfterAll
  static void stop() {
    if (standalone != null) {
      standalone.close();
    }
  }

  static List<KubectlVersions.Binary> kubectls() {
    return KubectlVersions.oldestAndNewest();
  }

  @ParameterizedTest(name = "kubectl {0}")
  @MethodSource("kubectls")
  void bothServersAnswerTheSessionAlike(KubectlVersions.Binary kubectl) throws Exception {
    List<KubectlSession.Step> steps = KubectlSession.steps();
    String run = "k" + kubectl.minor().replace(".", "");
    String ns = "kubectl-session-" + run.substring(1);
    KubectlSession.Target onReal =
        new KubectlSession.Target(
            real.kubeconfig(), kubectl.path(), scratch.resolve(run + "-real"), ns, run);
    KubectlSession.Target onStandalone =
        new KubectlSession.Target(
            standalone.kubeconfig(), kubectl.path(), scratch.resolve(run + "-standalone"), ns, run);
    Map<String, KubectlSession.StepOutput> realOut;
    Map<String, KubectlSession.StepOutput> standaloneOut;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Map<String, KubectlSession.StepOutput>> a =
          pool.submit(() -> KubectlSession.run(steps, onReal));
      Future<Map<String, KubectlSession.StepOutput>> b =
          pool.submit(() -> KubectlSession.run(steps, onStandalone));
      realOut = a.get();
      standaloneOut = b.get();
    } finally {
      pool.shutdownNow();
    }

    KnownDifferences known = KnownDifferences.read();
    Path reports = REPORTS.resolve(kubectl.minor());
    List<String> problems = new ArrayList<>();
    StringBuilder found = new StringBuilder();
    for (int i = 0; i < steps.size(); i++) {
      String step = steps.get(i).name();
      KubectlSession.StepOutput r = normalised(realOut.get(step), onReal);
      KubectlSession.StepOutput s = normalised(standaloneOut.get(step), onStandalone);
      String file = String.format("%03d-%s.txt", i, step);
      write(reports.resolve("real").resolve(file), r);
      write(reports.resolve("standalone").resolve(file), s);
      StepDifference d = StepDifference.between(r, s);
      Optional<KnownDifferences.Entry> listed = known.forStep(step, kubectl.minor());
      if (!d.isEmpty()) {
        found.append(KnownDifferences.entryText(step, kubectl.minor(), d, true)).append("\n\n");
      }
      if (listed.isEmpty() && !d.isEmpty()) {
        problems.add(
            "new difference in step "
                + step
                + " (fix standalone, or list it in "
                + KnownDifferences.DOC
                + " with the reason it stays):\n"
                + KnownDifferences.entryText(step, kubectl.minor(), d, true));
      } else if (listed.isPresent() && d.isEmpty()) {
        problems.add(
            "step "
                + step
                + " now prints the same on both servers: remove "
                + listed.get().heading()
                + " from "
                + KnownDifferences.DOC);
      } else if (listed.isPresent() && !listed.get().matches(d)) {
        problems.add(
            "step "
                + step
                + " differs otherwise than "
                + listed.get().heading()
                + " in "
                + KnownDifferences.DOC
                + " says; it now differs as:\n"
                + KnownDifferences.entryText(step, kubectl.minor(), d, true));
      }
    }
    Files.writeString(reports.resolve("differences.md"), found.toString());
    assertThat(problems)
        .as(
            "kubectl %s (%s): transcripts in %s",
            kubectl.minor(), kubectl.path(), reports.toAbsolutePath())
        .isEmpty();
  }

  @Test
  void theDocumentListsOnlyStepsOfTheSessionAndKubectlsThatRun() {
    List<String> steps = KubectlSession.steps().stream().map(KubectlSession.Step::name).toList();
    List<String> minors = kubectls().stream().map(KubectlVersions.Binary::minor).toList();
    for (KnownDifferences.Entry e : KnownDifferences.read().entries()) {
      assertThat(steps).as(e.heading() + " names a step of the session").contains(e.step());
      e.kubectl()
          .ifPresent(
              v -> assertThat(minors).as(e.heading() + " names a kubectl that runs").contains(v));
      assertThat(e.reason()).as(e.heading() + " says why the difference stays").isNotBlank();
    }
    assertThat(KnownDifferences.read().headingCounts()).allSatisfy((h, n) -> assertThat(n).isOne());
  }

  private static KubectlSession.StepOutput normalised(
      KubectlSession.StepOutput o, KubectlSession.Target t) {
    Map<String, String> literals = new LinkedHashMap<>();
    literals.put(t.work().toString(), "<work>");
    literals.put(t.scratch().toString(), "<work>");
    literals.put(t.namespace(), "<ns>");
    literals.put(t.run(), "<run>");
    return new KubectlSession.StepOutput(
        o.exitCode(),
        TranscriptNormaliser.normalise(o.out(), literals),
        TranscriptNormaliser.normalise(o.err(), literals));
  }

  private static void write(Path file, KubectlSession.StepOutput o) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(
        file, "exit: " + o.exitCode() + "\n--- out\n" + o.out() + "\n--- err\n" + o.err());
  }
}
