package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the conformance session's normalisation takes out of a transcript, and what it must leave
 * alone (a rule that swallowed real differences would make the session pass on anything).
 */
class TranscriptNormaliserTest {

  private static String n(String s) {
    return TranscriptNormaliser.normalise(
        s,
        new LinkedHashMap<>(
            Map.of(
                "/tmp/octomy-kubectl-session123/k133-real",
                "<work>",
                "kubectl-session-133",
                "<ns>")));
  }

  @Test
  void agesAndColumnWidthsGoButTheCellsStay() {
    assertThat(n("NAME       CLASS   AGE\nsolve-a    Burstable   12s\nrender-c   <none>   3m4s"))
        .isEqualTo("NAME   CLASS   AGE\nsolve-a   Burstable   <age>\nrender-c   <none>   <age>");
    assertThat(n("2d3h")).isEqualTo("<age>");
    assertThat(n("<invalid>")).isEqualTo("<age>");
    // names, versions and quantities are not ages
    assertThat(n("page-1 v1alpha1 conf-133 octomy.io/cpu-milli: 2000"))
        .isEqualTo("page-1 v1alpha1 conf-133 octomy.io/cpu-milli: 2000");
  }

  @Test
  void identitiesAndTimesOfOneRunGo() {
    assertThat(
            n(
                "uid: 0b8f1c2e-1f7a-4a43-9d7c-1d7a3c9e2f11\n"
                    + "resourceVersion: \"4711\"\n"
                    + "creationTimestamp: \"2026-12-01T11:57:53Z\"\n"
                    + "  Resource Version:  12\n"
                    + "Creation Timestamp:  Mon, 01 Dec 2026 11:57:53 +0000\n"
                    + "server: https://127.0.0.1:35111\n"
                    + "batchjob.batch.octomy.io/gen-x7k2p\n"
                    + "--- /tmp/LIVE-3437808775/a\t2026-12-01 11:57:53.820354999 +0000\n"
                    + "W1201 11:58:47.704860   12632 schema.go:145] text\n"
                    + "{\"metadata\":{\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ\"}}\n"
                    + "client-key-data: LS0tLS1CRUdJTi\n"
                    + "/tmp/octomy-kubectl-session123/k133-real/app/jobs.yaml\n"
                    + "namespace: kubectl-session-133"))
        .isEqualTo(
            "uid: <uid>\n"
                + "resourceVersion: \"<rv>\"\n"
                + "creationTimestamp: \"<time>\"\n"
                + "  Resource Version:   <rv>\n"
                + "Creation Timestamp:   <time>\n"
                + "server: <server>\n"
                + "batchjob.batch.octomy.io/gen-<suffix>\n"
                + "--- <LIVE>/a\t<time>\n"
                + "W<klog> schema.go:145] text\n"
                + "{\"metadata\":{\"continue\":\"<continue>\"}}\n"
                + "client-key-data: <data>\n"
                + "<work>/app/jobs.yaml\n"
                + "namespace: <ns>");
  }

  @Test
  void theCausesOfAnInvalidErrorAreSortedAndKeptWhole() {
    assertThat(
            n(
                "BatchNode \"b\" is invalid: [spec.mode: Unsupported value: \"Turbo\": supported"
                    + " values: \"Background\", \"Drone\", spec.executor: Unsupported value:"
                    + " \"Docker\", <nil>: Invalid value: null: some rules]"))
        .isEqualTo(
            "BatchNode \"b\" is invalid: [<nil>: Invalid value: null: some rules,"
                + " spec.executor: Unsupported value: \"Docker\", spec.mode: Unsupported value:"
                + " \"Turbo\": supported values: \"Background\", \"Drone\"]");
    assertThat(n("The BatchNode \"b\" is invalid: \n* spec.mode: x\n* spec.executor: y\ndone"))
        .isEqualTo("The BatchNode \"b\" is invalid:\n* spec.executor: y\n* spec.mode: x\ndone");
  }

  @Test
  void kubectlsReportOfItsOwnDeadlineGoesAndOtherErrorsStay() {
    assertThat(
            n(
                "E1201 12:00:00.000001   42 reflector.go:200] \"Failed to watch\" err=\"context"
                    + " deadline exceeded\" reflector=\"x\"\n"
                    + "error: timed out waiting for the condition on batchjobs/held\n"))
        .isEqualTo("error: timed out waiting for the condition on batchjobs/held\n");
    assertThat(
            n("E1201 12:00:00.000001   42 reflector.go:200] \"Failed to watch\" err=\"forbidden\""))
        .isEqualTo("E<klog> reflector.go:200] \"Failed to watch\" err=\"forbidden\"");
  }

  @Test
  void rawJsonLinesGetTheirKeysInOneOrder() {
    assertThat(n("{\"type\":\"ADDED\",\"object\":{\"kind\":\"A\",\"apiVersion\":\"v1\"}}"))
        .isEqualTo("{\"object\":{\"apiVersion\":\"v1\",\"kind\":\"A\"},\"type\":\"ADDED\"}");
  }

  @Test
  void aDifferenceNamesTheLinesOfEachSideAndTheExitCodes() {
    StepDifference d =
        StepDifference.between(
            new KubectlSession.StepOutput(1, "a\nb\nc\n", "error: x\n"),
            new KubectlSession.StepOutput(0, "a\nc\nd\n", "error: x\n"));
    assertThat(d.lines()).containsExactly("exit: 1 -> 0", "out- b", "out+ d");
    assertThat(
            StepDifference.between(
                    new KubectlSession.StepOutput(0, "a\nb", ""),
                    new KubectlSession.StepOutput(0, "b\na\n", ""))
                .lines())
        .containsExactly("out~ order");
    assertThat(
            StepDifference.between(
                    new KubectlSession.StepOutput(0, "x  \n", ""),
                    new KubectlSession.StepOutput(0, "x", ""))
                .isEmpty())
        .isTrue();
  }
}
